#pragma once
// Small vocabulary shared by every rule: why a match failed (MLIR's notifyMatchFailure, free in
// release: a pointer to a string literal), rule names as template arguments, and a non-owning
// callable reference for the matcher's hot loop.
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace autograph::rules {

/// Success, or the reason a candidate was rejected. Reasons are string literals: recording one
/// costs a pointer store, so matchers report them always, not only in debug builds.
struct Status {
  char const* why = nullptr;
  constexpr explicit operator bool() const { return why == nullptr; }
};
inline constexpr Status ok{};
constexpr Status no_match(char const* why) { return Status{why}; }
constexpr Status to_status(bool b, char const* why = "a constraint of the rule does not hold") { return b ? ok : no_match(why); }
constexpr Status to_status(Status s) { return s; }

/// A string usable as a template argument: `FuseActivation<"fuse-conv-relu", Conv2D, Relu>`.
template <std::size_t N>
struct FixedString {
  char chars[N]{};
  constexpr FixedString(char const (&s)[N]) { std::copy_n(s, N, chars); }  // NOLINT: implicit by design
  constexpr operator std::string_view() const { return {chars, N - 1}; }  // NOLINT
};

/// A non-owning reference to a callable (the matcher calls its sink once per match; a
/// std::function would allocate for capturing lambdas).
template <class Sig>
class FunctionRef;
template <class R, class... A>
class FunctionRef<R(A...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, A...>)
  FunctionRef(F&& f)  // NOLINT: implicit by design
      : obj_(const_cast<void*>(static_cast<void const*>(std::addressof(f)))),
        call_([](void* o, A... a) -> R { return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<A>(a)...); }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  void* obj_;
  R (*call_)(void*, A...);
};

}  // namespace autograph::rules
