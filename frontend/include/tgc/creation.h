// Public API: creation (in progress).
#pragma once
