from qmigrate.cli import main

main(prog_name="qmigrate")
