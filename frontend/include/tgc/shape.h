// Public API: shape (in progress).
#pragma once
