#pragma once
// AnyOp: one operator of any type, immutable and shared. A graph node holds one; copying a
// node copies a pointer. Type tests are a pointer compare (no virtual call), so matchers
// ask `op.is<Conv2D>()` cheaply; the per-type work (shape inference, costs, hashing) goes
// through a small table built once per operator type. Only the op types a translation unit
// actually constructs are instantiated — a std::variant of every op made each test file pay
// for all of them.
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autograph/ops/operator.hpp"

namespace autograph {

namespace detail {
template <class T>
inline constexpr char type_tag = 0;  // one address per type, the same in every translation unit
}

class AnyOp {
 public:
  AnyOp() = default;
  template <class O>
    requires(!std::is_same_v<std::remove_cvref_t<O>, AnyOp> && requires { O::name; } && Operator<O>)
  AnyOp(O op) : p_(std::make_shared<Holder<O> const>(std::move(op))) {}  // NOLINT: implicit by design

  bool has_value() const { return p_ != nullptr; }
  template <class O>
  bool is() const { return p_ && p_->tag == &detail::type_tag<O>; }
  template <class O>
  O const* get_if() const { return is<O>() ? &static_cast<Holder<O> const*>(p_.get())->op : nullptr; }
  /// Identifies the operator type (for indexing nodes by type).
  void const* type_id() const { return p_ ? p_->tag : nullptr; }
  template <class O>
  static void const* type_id_of() { return &detail::type_tag<O>; }

  std::string_view name() const { return p_->name(); }
  bool is_source() const { return p_->is_source(); }
  bool commutative() const { return p_->commutative(); }
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return p_->infer(in); }
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const { return p_->flops(in, out); }
  double macs(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const { return p_->macs(in, out); }
  double bytes(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const { return p_->bytes(in, out); }
  std::uint64_t hash() const { return p_->hash; }  // computed once: ops are immutable
  std::string attributes() const { return p_->attributes(); }
  Arity arity() const { return p_->arity(); }

  friend bool operator==(AnyOp const& a, AnyOp const& b) {
    if (a.p_.get() == b.p_.get()) return true;
    if (!a.p_ || !b.p_ || a.p_->tag != b.p_->tag || a.p_->hash != b.p_->hash) return false;
    return a.p_->equals(*b.p_);
  }

 private:
  struct Base {
    void const* tag;
    std::uint64_t hash = 0;
    explicit Base(void const* t) : tag(t) {}
    virtual ~Base() = default;
    virtual std::string_view name() const = 0;
    virtual bool is_source() const = 0;
    virtual bool commutative() const = 0;
    virtual Arity arity() const = 0;
    virtual std::vector<TensorDesc> infer(std::span<TensorDesc const>) const = 0;
    virtual double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const = 0;
    virtual double macs(std::span<TensorDesc const>, std::span<TensorDesc const>) const = 0;
    virtual double bytes(std::span<TensorDesc const>, std::span<TensorDesc const>) const = 0;
    virtual std::string attributes() const = 0;
    virtual bool equals(Base const&) const = 0;
  };
  template <class O>
  struct Holder final : Base {
    O op;
    explicit Holder(O o) : Base(&detail::type_tag<O>), op(std::move(o)) { this->hash = op_hash(op); }
    std::string_view name() const override { return O::name; }
    bool is_source() const override { return is_source_op<O>; }
    bool commutative() const override { return is_commutative<O>; }
    Arity arity() const override { return O::arity; }
    std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const override {
      detail::check_arity<O>(in);  // ops' own infer() assumes it
      return op.infer(in);
    }
    double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const override { return op.flops(in, out); }
    double macs(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const override { return op_macs(op, in, out); }
    double bytes(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const override { return op_bytes(op, in, out); }
    std::string attributes() const override { return op_attributes(op); }
    bool equals(Base const& other) const override { return op == static_cast<Holder const&>(other).op; }
  };
  std::shared_ptr<Base const> p_;
};

}  // namespace autograph
