from setuptools import setup

setup(
    name="qmigrate",
    version="0.1.0",
    description="Rewrite TensorFlow 1.x queue-based input pipelines into tf.data",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.9",
    packages=["qmigrate", "qmigrate.rules"],
    package_dir={"qmigrate": "qmigrate", "qmigrate.rules": "rules"},
    package_data={"qmigrate": ["data/*.txt"]},  # the TensorFlow symbol tables targets.py reads
    install_requires=["libcst>=1.5", "click>=8.0", "tomli>=1.1; python_version < '3.11'"],
    extras_require={"test": ["pytest>=7", "pytest-xdist>=3", "numpy", "hypothesis", "jsonschema", "pyflakes>=3"]},
    entry_points={"console_scripts": ["qmigrate=qmigrate.cli:main"]},
)
