// Frontend API: shape (in progress).
