// Public API: join (in progress).
#pragma once
