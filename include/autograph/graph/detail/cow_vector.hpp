#pragma once
// A vector stored in fixed-size chunks shared between copies: copying costs one pointer per
// chunk, and writing an element clones only its chunk when another copy still shares it.
// Search makes tens of thousands of graphs that differ from their parent in a few nodes;
// this keeps each of them about the size of its rewrite.
#include <cstddef>
#include <memory>
#include <vector>

namespace autograph::detail {

template <class T, std::size_t ChunkSize = 16>
class CowVector {
 public:
  std::size_t size() const { return size_; }
  T const& operator[](std::size_t i) const { return (*chunks_[i / ChunkSize])[i % ChunkSize]; }

  /// Writable access; clones the chunk first when another copy shares it.
  T& mutate(std::size_t i) {
    auto& chunk = chunks_[i / ChunkSize];
    if (chunk.use_count() > 1) chunk = std::make_shared<std::vector<T>>(*chunk);
    return (*chunk)[i % ChunkSize];
  }

  void push_back(T value) {
    if (size_ % ChunkSize == 0) {
      auto chunk = std::make_shared<std::vector<T>>();
      chunk->reserve(ChunkSize);
      chunks_.push_back(std::move(chunk));
    } else if (chunks_.back().use_count() > 1) {
      chunks_.back() = std::make_shared<std::vector<T>>(*chunks_.back());
    }
    chunks_.back()->push_back(std::move(value));
    ++size_;
  }

 private:
  std::vector<std::shared_ptr<std::vector<T>>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace autograph::detail
