// Lowering placed graphs (cpu/backends/backend_group.hpp's PlacedOps: the built-in operators and
// BackendGroup), compiled once like the built-in set's (lower.cpp), with the runtime's measuring of them:
// each test file that placed and measured a model spent 10-20 s instantiating them.
#include "autograph/cpu/backends/backend_group.hpp"
#include "autograph/cpu/backends/place.hpp"
#include "autograph/cpu/lower.hpp"
#include "autograph/cpu/runtime.hpp"

namespace autograph::cpu {

template ChannelsLastIo channels_last_io<PlacedOps>(AnyOp const&, std::span<TensorDesc const>);
template std::shared_ptr<CpuGraph const> lower<PlacedOps>(Graph<PlacedOps> const&, LowerOptions const&);
// What placement and its tests ask of the default CPU runtime for placed graphs.
template double CpuRuntime::measure<PlacedOps>(Graph<PlacedOps> const&);
template double CpuRuntime::measure<PlacedOps>(Graph<PlacedOps> const&, Schedule const&);
template Comparison CpuRuntime::compare<PlacedOps>(Graph<PlacedOps> const&, Graph<PlacedOps> const&, CompareOptions);
template CpuExecutable CpuRuntime::compile<PlacedOps>(Graph<PlacedOps> const&, Schedule const&, ExecOptions);

}  // namespace autograph::cpu
