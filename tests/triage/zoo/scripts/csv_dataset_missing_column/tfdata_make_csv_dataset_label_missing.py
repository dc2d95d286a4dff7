"""make_csv_dataset told the label column is 'target' while the CSV header calls it 'label'.

label: input_pipeline
family: csv_dataset_missing_column
"""

import tensorflow as tf

with open("train.csv", "w") as fh:
    fh.write("a,b,label\n1,2,0\n3,4,1\n")
ds = tf.data.experimental.make_csv_dataset("train.csv", batch_size=2, label_name="target", num_epochs=1)
print(next(iter(ds)))
