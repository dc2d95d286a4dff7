"""CsvDataset selects column 5 of a file that has 3 columns.

label: input_pipeline
family: csv_dataset_missing_column
"""

import tensorflow as tf

with open("rows.csv", "w") as fh:
    fh.write("1,2,3\n4,5,6\n")
ds = tf.data.experimental.CsvDataset("rows.csv", [tf.float32, tf.float32], select_cols=[0, 5])
for row in ds:
    print(row)
