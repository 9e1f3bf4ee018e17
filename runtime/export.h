// What libtgc exports: the declarations of the installed headers, and nothing else.
//
// libtgc's objects are compiled with -fvisibility=hidden (and inline members hidden), so a
// symbol is visible to programs linked against libtgc.so only where its declaration says so.
// Every header that `cmake --install` installs (the public <tgc/...> API and the component
// headers it includes, found by cmake/install_headers.cmake, which refuses a header without
// these markers) wraps its declarations in TGC_API_BEGIN ... TGC_API_END. One rule, made in
// one place: what a consumer can include is what it can link, so a declaration added to an
// installed header is exported without a per-function macro, and the thousands of internal
// functions, fmt's and nlohmann-json's instantiations among them, stay inside the library
// where a consumer's own copies cannot collide with them. tgc's tests, tools and Python
// module link the same objects statically (the tgc_internal target) and see everything.
#pragma once

#define TGC_API_BEGIN _Pragma("GCC visibility push(default)")
#define TGC_API_END _Pragma("GCC visibility pop")
