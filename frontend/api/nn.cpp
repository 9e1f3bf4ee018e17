// Frontend API: nn (in progress).
