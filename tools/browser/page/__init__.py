"""What the model reads of a page and how it addresses it: snapshots, refs, text, images, forms and
keys, when a ref's element can be acted on (actionable), and finding an element again by what it
is (again: a routine's replayed step)."""
