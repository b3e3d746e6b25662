// Everything: #include "seqlab/seqlab.hpp".
#pragma once
#include "seqlab/tensor.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/linalg.hpp"
#include "seqlab/ops/shape.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/loss.hpp"
#include "seqlab/ops/random.hpp"
#include "seqlab/ops/norm.hpp"
#include "seqlab/parallel.hpp"
