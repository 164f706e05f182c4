#!/usr/bin/env python3
# Kernel rates on the GPU at hand, for the simulator's device description (cost/device.hpp):
# - an 8192^3 FP32 GEMM with TF32 off (CUDA cores) and on (tensor cores), cuBLAS through PyTorch;
# - depthwise convolutions (groups = channels; cuDNN, FP32, TF32 off) of 3x3, 5x5 and 7x7
#   kernels at batch 1 and 32, on NASNet-A Large's separable-convolution shapes;
# - dense 3x3 convolutions of ResNet-34's four stages at batch 1 (cuDNN's fastest, FP32, TF32 off).
# Each time: the median of 5 timings of 20 back-to-back runs (CUDA events) after 3 warm-up runs.
# Prints JSON and writes $OUT/kernel_rates.json. h100-kernel-rates-2026-11-27.json beside this
# file is its output on one H100 SXM (PyTorch 2.11, cuDNN 9.19); at batch 1 the depthwise
# times (about 11 us each) are PyTorch's per-call host time, not the kernels'.
#
#   OUT=/tmp python3 benchmark/sim/h100_kernel_rates.py
import json,os,statistics,torch
torch.backends.cudnn.benchmark=True
def T(f,r=20,q=5):
 for _ in range(3):f()
 torch.cuda.synchronize();t=[]
 for _ in range(q):
  s=torch.cuda.Event(enable_timing=True);e=torch.cuda.Event(enable_timing=True);s.record()
  for _ in range(r):f()
  e.record();e.synchronize();t.append(s.elapsed_time(e)/r)
 return statistics.median(t)
def G(n,tf):
 torch.backends.cuda.matmul.allow_tf32=tf;a=torch.randn(n,n,device="cuda");b=torch.randn(n,n,device="cuda");ms=T(lambda:a@b)
 return dict(n=n,tf32=tf,ms=ms,tflops=2*n**3/ms/1e9)
def C(b,c,hw,k,g):
 torch.backends.cudnn.allow_tf32=False;F=torch.nn.functional.conv2d
 x=torch.randn(b,c,hw,hw,device="cuda");w=torch.randn(c,c//g,k,k,device="cuda")
 with torch.no_grad():
  y=F(x,w,padding=k//2,groups=g);ms=T(lambda:F(x,w,padding=k//2,groups=g))
 return dict(b=b,c=c,hw=hw,k=k,g=g,ms=ms,tflops=2*y.numel()*(c//g)*k*k/ms/1e9,gbs=4*(x.numel()+w.numel()+y.numel())/ms/1e6)
p=torch.cuda.get_device_properties(0)
o=dict(device=p.name,sms=p.multi_processor_count,torch=torch.__version__,cudnn=torch.backends.cudnn.version())
o["gemm"]=[G(8192,False),G(8192,True)]
o["depthwise"]=[C(b,c,hw,k,c) for b in (1,32) for c,hw in ((168,42),(336,21),(672,11)) for k in (3,5,7)]
o["dense"]=[C(1,c,hw,3,1) for c,hw in ((64,56),(128,28),(256,14),(512,7))]
s=json.dumps(o,indent=1);print(s);open(os.environ.get("OUT",".")+"/kernel_rates.json","w").write(s)
