// Frontend API: linalg (in progress).
