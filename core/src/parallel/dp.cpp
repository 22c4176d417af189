// Data parallelism as PyTorch DDP runs it (Li et al. 2020, "PyTorch Distributed"): gradients
// are packed into buckets in the order the backward pass produces them, and each bucket's
// all-reduce is launched on a communication stream as soon as its last gradient is ready, so
// communication overlaps the rest of the backward pass. The first bucket is capped at 1 MiB so
// communication starts early; the rest at bucket_cap_mb (25 MB by default). With several
// micro-batches only the last one's backward reduces (no_sync for the others).
#include <algorithm>

#include "parallel/parallel.hpp"

namespace tilecast::detail {

BucketFiller::BucketFiller(double bucket_mb, double total_bytes, double accumulated_bytes)
    : cap_bytes_(bucket_mb * 1024 * 1024),
      first_cap_bytes_(std::min(1024.0 * 1024, bucket_mb * 1024 * 1024)),
      skip_bytes_(std::max(0.0, accumulated_bytes - total_bytes)) {}

void BucketFiller::add(double bytes, double ready_ms) {
  // a tied weight's first accumulation is not yet its gradient
  const double skipped = std::min(bytes, skip_bytes_);
  skip_bytes_ -= skipped;
  bytes -= skipped;
  if (bytes <= 0) return;
  open_ += bytes;
  last_ready_ = ready_ms;
  const double cap = buckets_.empty() ? first_cap_bytes_ : cap_bytes_;
  if (open_ >= cap) {
    buckets_.push_back({ready_ms, open_});
    open_ = 0;
  }
}

std::vector<Bucket> BucketFiller::finish() {
  if (open_ > 0) buckets_.push_back({last_ready_, open_});
  open_ = 0;
  return buckets_;
}

}  // namespace tilecast::detail
