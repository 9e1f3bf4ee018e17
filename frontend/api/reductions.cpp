// Frontend API: reductions (in progress).
