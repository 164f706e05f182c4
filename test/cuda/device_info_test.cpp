// What a measurement says it ran on (cuda/device.hpp), checked without a GPU.
#include <gtest/gtest.h>

#include "autograph/cuda/device.hpp"

namespace autograph::cuda {
namespace {

// The first GPU run (an H200 with the open kernel modules) reported "driver for": the version
// was taken as the word after "Module", which the open modules' line follows with "for x86_64".
TEST(DeviceInfo, ReadsTheDriverVersionFromEitherKernelModuleLine) {
  EXPECT_EQ(detail::kernel_module_version_in("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:53 UTC 2025"),
            "580.65.06");
  EXPECT_EQ(detail::kernel_module_version_in("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U22)"),
            "580.159.04");
  EXPECT_EQ(detail::kernel_module_version_in("NVRM version: unreadable"), "");
  EXPECT_EQ(detail::kernel_module_version_in(""), "");
}

}  // namespace
}  // namespace autograph::cuda
