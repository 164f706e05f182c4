// Device memory: the footprint of a graph run one node at a time, and the check that it fits.
#include <autograph/cost/device.hpp>
#include <autograph/cost/memory.hpp>
#include <autograph/graph/builder.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

constexpr double GiB = 1073741824.0;

/// The message of the Error `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (Error const& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceMemory, EveryBuiltInDeviceHasItsDatasheetCapacity) {
  EXPECT_DOUBLE_EQ(devices::H100::spec.memory_bytes(), 80 * GiB);
  EXPECT_DOUBLE_EQ(devices::H200::spec.memory_bytes(), 141 * GiB);
  EXPECT_DOUBLE_EQ(devices::A100::spec.memory_bytes(), 80 * GiB);
  EXPECT_DOUBLE_EQ(devices::V100::spec.memory_bytes(), 32 * GiB);
  EXPECT_DOUBLE_EQ(devices::RTX2080Ti::spec.memory_bytes(), 11 * GiB);
}

TEST(DeviceMemory, TensorsLiveUntilTheirLastReaderAndWeightsAndInputsStay) {
  // x (4 KiB, resident) -> a -> b -> c, each 4 KiB; a is read by b only, so at most two of
  // a, b, c are live at once: x + a + b.
  GraphBuilder b;
  Value x = b.input("x", {1, 1024});
  Value c = b.relu(b.relu(b.relu(x, "a"), "b"), "c");
  auto g = std::move(b).build({c});
  auto f = device_footprint(g);
  EXPECT_DOUBLE_EQ(f.resident_bytes, 4096);
  EXPECT_DOUBLE_EQ(f.peak_bytes, 3 * 4096);
  EXPECT_DOUBLE_EQ(f.largest_bytes, 4096);
}

TEST(DeviceMemory, AViewKeepsItsInputAlive) {
  // a's storage is read through the view r by d, after c: a, c and d are live at once.
  GraphBuilder b;
  Value x = b.input("x", {1, 1024});
  Value a = b.relu(x, "a");
  Value r = b.reshape(a, {1024}, "r");
  Value c = b.relu(x, "c");
  Value d = b.add(r, b.reshape(c, {1024}), "d");
  auto g = std::move(b).build({d});
  EXPECT_DOUBLE_EQ(device_footprint(g).peak_bytes, 4 * 4096);  // x, a, c, d
}

TEST(DeviceMemory, ATensorLargerThanTheDeviceIsRejectedNamingItAndTheCapacity) {
  // A 1x3x100000x100000 input is 120 GB; the convolution's output is 64/3 times that.
  GraphBuilder b;
  Value x = b.input("x", {1, 3, 100000, 100000});
  auto g = std::move(b).build({b.conv2d(x, 64, {3, 3}, {}, "conv1")});
  std::string msg = error_of([&] { check_fits(g, devices::H100::spec); });
  EXPECT_NE(msg.find("H100 SXM"), std::string::npos) << msg;
  EXPECT_NE(msg.find("85899345920 bytes (80.0 GiB)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Conv2D 'conv1' output [1,64,100000,100000] f32, 2560000000000 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("alone"), std::string::npos) << msg;
}

TEST(DeviceMemory, TensorsThatFitAloneButNotTogetherAreRejectedNamingThePeak) {
  // 4 GiB each; x and y are both live when z is written: 12 GiB > the 11 GiB of an RTX 2080 Ti.
  GraphBuilder b;
  Value x = b.input("x", {1, 1024, 1024, 1024});
  Value y = b.relu(x, "y");
  auto g = std::move(b).build({b.add(x, y, "z")});
  EXPECT_EQ(error_of([&] { check_fits(g, devices::H100::spec); }), "");
  std::string msg = error_of([&] { check_fits(g, devices::RTX2080Ti::spec); });
  EXPECT_NE(msg.find("RTX 2080 Ti"), std::string::npos) << msg;
  EXPECT_NE(msg.find("12884901888 bytes"), std::string::npos) << msg;  // the peak
  EXPECT_NE(msg.find("Add 'z'"), std::string::npos) << msg;            // where it is reached
  EXPECT_NE(msg.find("[1,1024,1024,1024] f32, 4294967296 bytes"), std::string::npos) << msg;
}

TEST(DeviceMemory, AnUnknownCapacityChecksNothing) {
  GraphBuilder b;
  Value x = b.input("x", {1, 3, 100000, 100000});
  auto g = std::move(b).build({b.relu(x)});
  DeviceSpec custom = devices::H100::spec;
  custom.memory_gib = 0;
  EXPECT_EQ(error_of([&] { check_fits(g, custom); }), "");
}

}  // namespace
}  // namespace autograph
