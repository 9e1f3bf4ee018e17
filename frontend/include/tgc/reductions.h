// Public API: reductions (in progress).
#pragma once
