#pragma once
// rules::Default: the built-in rule library — every rewrite the TASO, MetaFlow, IOS and
// AutoGraph papers rely on, as one type list.
#include "autograph/rules/library/common_subexpression.hpp"
#include "autograph/rules/library/concat.hpp"
#include "autograph/rules/library/conv_folding.hpp"
#include "autograph/rules/library/elementwise.hpp"
#include "autograph/rules/library/fusion.hpp"
#include "autograph/rules/library/grouped_conv.hpp"
#include "autograph/rules/library/matmul.hpp"
#include "autograph/rules/library/merge.hpp"
#include "autograph/rules/library/pool.hpp"

namespace autograph::rules {

/// Fusions and foldings: rewrites that remove kernels without changing parallelism, and the
/// elimination of repeated kernels.
using Fusions = Rules<FuseConvRelu, FuseConvSigmoid, FuseConvTanh, FuseMatMulRelu, FuseMatMulSigmoid, FuseMatMulTanh, FoldConvBatchNorm,
                      FoldConvBias, FoldConvScale, EliminateCommonSubexpression>;
/// Merges: fewer, larger kernels (and their inverses), which trade parallelism for launches.
using Merges = Rules<EnlargeConvKernel, MergeSiblingOps, MergeAllSiblingOps, MergeInputChannels, SplitInputChannels, RegroupConvBy4,
                     RegroupConvBy8, MergeParallelConvs, ConcatConvsToGroupedConv, AvgPoolAdd>;
/// Layout and algebra: moves that enable the others.
using Algebra = Rules<UnaryThroughConcat, BinaryThroughConcat, SplitConcatCancel, ConcatSplitCancel, MatMulReassociateRight,
                      MatMulReassociateLeft, TransposeTranspose, TransposeOfMatMul, MatMulOfTransposes, CommuteAdd, CommuteMul, AssociateAdd,
                      AssociateMul, FactorMulOverAdd, DistributeMulOverAdd, SimplifySruGate>;

using Default = join_t<join_t<Fusions, Merges>, Algebra>;

}  // namespace autograph::rules
