// The built-in op families, in id order: the Op and OpFamily enumerators, the trainer's
// family order and seeds follow it. A new family is its file in this folder and one line here.
#include "kernel/family.hpp"

namespace tilecast {

FamilyTraits gemm_family();
FamilyTraits elementwise_family();
FamilyTraits softmax_family();
FamilyTraits layernorm_family();
FamilyTraits token_rows_family();

std::vector<FamilyTraits> builtin_families() {
  return {gemm_family(), elementwise_family(), softmax_family(), layernorm_family()};
}

}  // namespace tilecast

namespace tilecast {

std::vector<FamilyTraits> half_precision_families() { return {token_rows_family()}; }

}  // namespace tilecast
