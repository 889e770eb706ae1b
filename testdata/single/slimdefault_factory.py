"""A dataset factory in the layout of slim's: a table of dataset modules, and a reader class
passed down as given (None unless the caller chooses one)."""
import slimdefault_digits
import slimdefault_shapes

datasets_map = {
    'digits': slimdefault_digits,
    'shapes': slimdefault_shapes,
}


def get_dataset(name, split_name, dataset_dir, file_pattern=None, reader=None):
    if name not in datasets_map:
        raise ValueError('Name of dataset unknown %s' % name)
    return datasets_map[name].get_split(split_name, dataset_dir, file_pattern, reader)
