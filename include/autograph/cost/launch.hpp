#pragma once
// How kernels reach the GPU: a property of the runtime being simulated (SimulatedRuntime's
// LaunchModel), not of the kernels.
//
// - launch::CudaGraph: the schedule was captured once as a CUDA graph and is replayed with one
//   cudaGraphLaunch (DeviceSpec::graph_launch_us); the device dispatches each kernel as soon as
//   what it waits for has finished. This library's runtimes run this way.
// - launch::HostLaunched: a framework's host thread issues every kernel with cudaLaunchKernel,
//   one after another, as PyTorch, TensorRT's enqueue, IOS's and MetaFlow's engines do. Issuing
//   takes DeviceSpec::host_launch_us per kernel, and a kernel starts no earlier than it was
//   issued: many short kernels run at the host's pace, whatever the streams. The host issues
//   in a program order that respects every stream's order and wait (kernels whose turn is open
//   go in the order of the graph), and never blocks on the GPU (launches are asynchronous).
//   A run on more than one stream ends with the host synchronizing the device
//   (DeviceSpec::host_sync_us after the last kernel): streams that are not joined back cannot be
//   followed safely otherwise. IOS's engine does exactly this after every stage of several
//   groups, and so does its profiler when it times a stage; one stream needs no synchronization,
//   the next run's kernels queue behind it. SimulatedRuntime::measure_stages() runs a stage
//   list as IOS's engine does.
#include <concepts>
#include <string_view>

namespace autograph::launch {

struct CudaGraph {
  static constexpr bool host_issued = false;
  static constexpr std::string_view name = "CUDA graph";
};

struct HostLaunched {
  static constexpr bool host_issued = true;
  static constexpr std::string_view name = "host-launched";
};

}  // namespace autograph::launch

namespace autograph {

/// A launch model: launch::CudaGraph or launch::HostLaunched.
template <class L>
concept LaunchModel = requires {
  { L::host_issued } -> std::convertible_to<bool>;
  { L::name } -> std::convertible_to<std::string_view>;
};

}  // namespace autograph
