# Sourced by the scripts that run prebuilt binaries on a lent GPU machine (gpu-check.sh,
# gpu-place.sh): names the GPU, then puts BIN/../lib (what was carried with the binaries) first
# on the library path and the machine's own cuBLAS(Lt) and cuDNN after it, and says which
# binary still misses a library. Expects `bin` (the binaries' folder) and `say` (a logger);
# returns 1 when no GPU is visible.
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || { say "no GPU visible"; return 1; }
gpu_env_libs=$(find /usr/local/cuda*/ /usr/lib/x86_64-linux-gnu /opt -name 'libcublasLt.so.13' -o -name 'libcudnn.so.9' -o -name 'libcublas.so.13' 2>/dev/null |
  xargs -r -n1 dirname | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH="$(cd "$bin/../lib" 2>/dev/null && pwd):${gpu_env_libs}${LD_LIBRARY_PATH:-}"
say "library path: $LD_LIBRARY_PATH"
for gpu_env_binary in "$bin"/*; do
  [[ -f $gpu_env_binary && -x $gpu_env_binary ]] || continue
  ldd "$gpu_env_binary" | grep -q 'not found' && { say "$gpu_env_binary misses libraries:"; ldd "$gpu_env_binary" | grep 'not found'; }
done
