// Public API: nn (in progress).
#pragma once
