// Public API: linalg (in progress).
#pragma once
