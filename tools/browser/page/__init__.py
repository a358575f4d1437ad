"""What the model reads of a page and how it addresses it: snapshots, refs, text, images, forms and
keys, and when a ref's element can be acted on (actionable)."""
