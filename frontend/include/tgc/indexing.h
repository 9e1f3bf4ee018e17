// Public API: indexing (in progress).
#pragma once
