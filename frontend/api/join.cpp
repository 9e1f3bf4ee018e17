// Frontend API: join (in progress).
