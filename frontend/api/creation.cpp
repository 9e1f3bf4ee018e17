// Frontend API: creation (in progress).
