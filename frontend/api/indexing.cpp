// Frontend API: indexing (in progress).
