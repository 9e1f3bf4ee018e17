// Frontend API: math (in progress).
