"""Tools that work on the built site: the browser helpers and the PDF printer."""
