// FusedAttention on the CPU runtime: the tiled kernel of cpu/tuned/attention.hpp (the score
// matrix never in memory), in the configuration the tuning log holds for this CPU and shape
// (`autograph tune`, cpu/tuned/tuning_source.hpp), else the kernel's untuned default.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "autograph/cpu/ops.hpp"
#include "autograph/cpu/tuned/attention.hpp"
#include "autograph/cpu/tuned/fused_attention_problem.hpp"
#include "autograph/cpu/tuned/tuning_source.hpp"
#include "autograph/runtime/cpu/strided.hpp"
#include "autograph/tuning/best_logged.hpp"
#include "primitive.hpp"

namespace autograph::cpu {

namespace tuned {

FusedAttentionProblem attention_problem_of(FusedAttention const& op, std::span<TensorDesc const> in) {
  if (in.size() < 3) return {std::nullopt, "FusedAttention takes q, kT, v and an optional mask"};
  Shape const scores = op.scores_shape(in);  // throws naming the inputs when they do not chain
  std::size_t const r = scores.rank(), lead = r - 2;
  Shape const &q = in[0].shape, &k = in[1].shape, &v = in[2].shape;
  std::int64_t batch = 1;
  for (std::size_t i = 0; i < lead; ++i) batch *= scores[i];
  for (auto const& [name, s] : {std::pair{"q", &q}, {"kT", &k}, {"v", &v}}) {
    bool same = s->rank() == r;
    for (std::size_t i = 0; same && i < lead; ++i) same = (*s)[i] == scores[i];
    if (!same)
      return {std::nullopt, std::string(name) + " " + s->to_string() + " does not have the leading dims of the scores " + scores.to_string() +
                                " (the tiled kernel reads q, kT and v densely; it does not broadcast them)"};
  }
  AttentionProblem p = AttentionProblem::transposed_keys(batch, q[r - 2], k[r - 1], q[r - 1], v[r - 1], op.scale);
  if (in.size() < 4) return {p, {}};

  // The mask's element strides over the scores (0 where it broadcasts); its leading dims must
  // fold into the kernel's b = outer * inner_count + inner split: each group all broadcast, or
  // a dense row-major run.
  auto const st = cpu::broadcast_strides(in[3].shape, scores);
  auto group_stride = [&](std::size_t b, std::size_t e) -> std::optional<std::int64_t> {  // dims [b, e)
    std::vector<std::size_t> dims;  // those of more than one element: a size-1 dim reads one place whatever its stride
    for (std::size_t i = b; i < e; ++i)
      if (scores[i] != 1) dims.push_back(i);
    if (std::all_of(dims.begin(), dims.end(), [&](std::size_t i) { return st[i] == 0; })) return 0;
    for (std::size_t j = 0; j + 1 < dims.size(); ++j)
      if (st[dims[j]] != st[dims[j + 1]] * scores[dims[j + 1]]) return std::nullopt;
    if (st[dims.back()] == 0) return std::nullopt;  // part broadcast, part not
    return st[dims.back()];
  };
  for (std::size_t split = 0; split <= lead; ++split) {
    auto outer = group_stride(0, split), inner = group_stride(split, lead);
    if (!outer || !inner) continue;
    std::int64_t inner_count = 1;
    for (std::size_t i = split; i < lead; ++i) inner_count *= scores[i];
    return {p.with_mask(inner_count, *outer, *inner, st[r - 2], st[r - 1]), {}};
  }
  return {std::nullopt, "the mask " + in[3].shape.to_string() + " over the scores " + scores.to_string() +
                            " is neither broadcast nor dense over the leading dims in two groups"};
}

}  // namespace tuned

namespace builtin {

void prepare(FusedAttention const& op, Preparation& p) {
  if (nothing_to_compute(p)) return;
  auto [problem, why_not] = tuned::attention_problem_of(op, p.inputs());
  if (!problem) p.reject(why_not);
  tuned::AttentionConfig config = tuned::Attention::default_config(*problem);
  std::string source = "default";
  if (auto from = tuned::tuning_source(); from.log)
    if (auto best = tuning::best_logged<tuned::Attention>(*from.log, from.device, *problem)) config = best->config, source = "tuned";
  // The schedule decides how many cores this node has (concurrent branches take one each);
  // a tuned thread count is an upper bound, never more than that.
  config.threads = std::min<std::int64_t>(config.threads, p.threads());
  std::size_t const floats = tuned::attention_workspace_floats(*problem, config);
  std::size_t const ws = p.workspace(floats * sizeof(float));
  bool const masked = problem->has_mask;
  p.run("tiled attention, " + source + " " + tuned::Attention::to_string(config), [=, prob = *problem](Io const& io) -> Runner {
    return [=, q = io.in[0], k = io.in[1], v = io.in[2], mask = masked ? io.in[3] : nullptr, out = io.out[0],
            w = static_cast<float*>(io.workspace[ws])] { tuned::attention(prob, config, q, k, v, mask, out, std::span<float>(w, floats)); };
  });
}

}  // namespace builtin
}  // namespace autograph::cpu
