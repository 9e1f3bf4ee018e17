// Public API: math (in progress).
#pragma once
