"""DETR-ResNet50 in PyTorch, the architecture of the zoo's detr_r50_e3/e6/e12
(include/autograph/models/detr.hpp), for the PyTorch peers of benchmark/cpu-peers.sh --transformers.

Written after facebookresearch/detr for inference (models/detr.py, backbone.py, transformer.py,
position_encoding.py) with the same choices as the zoo model:

- backbone: torchvision's resnet50 with FrozenBatchNorm2d (eps 1e-5), its stem and layer1..layer4
  (no avgpool, no fc); input_proj: a 1x1 convolution 2048 -> 256 with bias;
- the sine position encoding (normalize=True, scale 2 pi, temperature 10000, y then x) of an
  unpadded feature map: a constant buffer computed once for the input's size, as the zoo model
  holds it (DETR computes it from the padding mask in every forward());
- post-norm encoder and decoder layers (ReLU FFN 2048, 8 heads, width 256), nn.MultiheadAttention
  batch-first, called with need_weights=False (the zoo model does not compute the averaged
  attention weights DETR's decoder returns for its losses); the decoder's final LayerNorm;
- heads on the last decoder layer only: class_embed Linear(256, num_classes + 1) and the
  3-layer bbox MLP with a sigmoid.

Parameters (model.parameters()): 41,524,768 for 6 encoder layers, what the zoo model's
trainable_parameters() counts; torch_bench.py prints both and refuses a mismatch.
"""

import math

import torch
import torch.nn.functional as F
import torchvision
from torch import nn
from torchvision.ops.misc import FrozenBatchNorm2d


def sine_position(h, w, hidden):
    """PositionEmbeddingSine(hidden // 2, normalize=True) of an unpadded h x w map, as tokens [1, h*w, hidden]."""
    feats = hidden // 2
    eps, scale = 1e-6, 2 * math.pi
    y = torch.arange(1, h + 1, dtype=torch.float64)[:, None].expand(h, w) / (h + eps) * scale
    x = torch.arange(1, w + 1, dtype=torch.float64)[None, :].expand(h, w) / (w + eps) * scale
    dim_t = torch.arange(feats, dtype=torch.float64)
    dim_t = 10000 ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / feats)
    px, py = x[:, :, None] / dim_t, y[:, :, None] / dim_t
    px = torch.stack((px[:, :, 0::2].sin(), px[:, :, 1::2].cos()), dim=3).flatten(2)
    py = torch.stack((py[:, :, 0::2].sin(), py[:, :, 1::2].cos()), dim=3).flatten(2)
    return torch.cat((py, px), dim=2).reshape(1, h * w, hidden).float()


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.linear1, self.linear2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, src, pos):
        q = src + pos
        src = self.norm1(src + self.self_attn(q, q, src, need_weights=False)[0])
        return self.norm2(src + self.linear2(F.relu(self.linear1(src))))


class DecoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.multihead_attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.linear1, self.linear2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, tgt, memory, pos, query_pos):
        q = tgt + query_pos
        tgt = self.norm1(tgt + self.self_attn(q, q, tgt, need_weights=False)[0])
        tgt = self.norm2(tgt + self.multihead_attn(tgt + query_pos, memory + pos, memory, need_weights=False)[0])
        return self.norm3(tgt + self.linear2(F.relu(self.linear1(tgt))))


class Detr(nn.Module):
    def __init__(self, image_hw, encoder_layers=6, decoder_layers=6, hidden=256, heads=8, ffn=2048, queries=100, num_classes=91):
        super().__init__()
        r = torchvision.models.resnet50(weights=None, norm_layer=FrozenBatchNorm2d)
        self.backbone = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool, r.layer1, r.layer2, r.layer3, r.layer4)
        self.input_proj = nn.Conv2d(2048, hidden, 1)
        self.encoder = nn.ModuleList(EncoderLayer(hidden, heads, ffn) for _ in range(encoder_layers))
        self.decoder = nn.ModuleList(DecoderLayer(hidden, heads, ffn) for _ in range(decoder_layers))
        self.decoder_norm = nn.LayerNorm(hidden)
        self.query_embed = nn.Embedding(queries, hidden)
        self.class_embed = nn.Linear(hidden, num_classes + 1)
        self.bbox_embed = nn.ModuleList([nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, 4)])
        # The feature map's size: ResNet-50's stride 32 with its rounding, from a dry run.
        with torch.no_grad():
            h, w = self.backbone(torch.zeros(1, 3, *image_hw)).shape[2:]
        self.register_buffer("pos", sine_position(h, w, hidden))
        self.hidden = hidden

    def forward(self, image):
        n = image.shape[0]
        f = self.input_proj(self.backbone(image))
        memory = f.flatten(2).transpose(1, 2)  # [N, HW, hidden]
        pos = self.pos.expand(n, -1, -1)
        for layer in self.encoder:
            memory = layer(memory, pos)
        query_pos = self.query_embed.weight.unsqueeze(0).expand(n, -1, -1)
        tgt = torch.zeros_like(query_pos)
        for layer in self.decoder:
            tgt = layer(tgt, memory, pos, query_pos)
        hs = self.decoder_norm(tgt)
        box = F.relu(self.bbox_embed[0](hs))
        box = F.relu(self.bbox_embed[1](box))
        return self.class_embed(hs), torch.sigmoid(self.bbox_embed[2](box))
