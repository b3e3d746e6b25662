// Placeholder: filled in by the issue-5 work on this part.
#include "bind_common.hpp"

namespace seqlab::bind {

void bind_glove(py::module_& m) { (void)m; }

}  // namespace seqlab::bind
