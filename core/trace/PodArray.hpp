#pragma once
// A growing array of trivially copyable records kept in malloc'd memory and grown with realloc:
// a large block is mmapped by the allocator, and realloc then moves its pages (mremap) instead
// of copying them, so growing never holds the old and the new array at once. A reader of a
// multi-GB trace keeps millions of records this way at their own size, not twice it.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ts {

template <typename T>
class PodArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  PodArray() = default;
  ~PodArray() { std::free(data_); }
  PodArray(const PodArray&) = delete;
  PodArray& operator=(const PodArray&) = delete;

  void push_back(const T& value) {
    if (size_ == capacity_) grow();
    data_[size_++] = value;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  // Gives the memory back now (a reader frees what it no longer needs before it builds more).
  void release() {
    std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

 private:
  void grow() {
    const size_t capacity = capacity_ ? capacity_ + capacity_ / 2 : 1024;
    void* grown = std::realloc(data_, capacity * sizeof(T));
    if (!grown) throw std::bad_alloc();
    data_ = static_cast<T*>(grown);
    capacity_ = capacity;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Records in chunks of 40 MiB that are never moved, for the largest table of a read (a trace's
// kernels): drain() visits them in order and frees each chunk once visited, so that the table
// they become is built while they go, not beside all of them. A chunk is larger than glibc's
// largest mmap threshold (32 MiB), so it is mapped on its own and its memory goes back to the
// system when freed; untouched pages of the last one cost nothing.
template <typename T>
class PodChunks {
  static_assert(std::is_trivially_copyable_v<T>);
  static constexpr size_t kPerChunk = (size_t{40} << 20) / sizeof(T);

 public:
  PodChunks() = default;
  ~PodChunks() { clear(); }
  PodChunks(const PodChunks&) = delete;
  PodChunks& operator=(const PodChunks&) = delete;

  void push_back(const T& value) {
    if (size_ == chunks_.size() * kPerChunk) {
      void* chunk = std::malloc(kPerChunk * sizeof(T));
      if (!chunk) throw std::bad_alloc();
      chunks_.push_back(static_cast<T*>(chunk));
    }
    chunks_.back()[size_ % kPerChunk] = value;
    ++size_;
  }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return chunks_[i / kPerChunk][i % kPerChunk]; }
  const T& operator[](size_t i) const { return chunks_[i / kPerChunk][i % kPerChunk]; }

  // Calls visit(record) for each in order, freeing each chunk once done; empty afterwards.
  template <typename Visit>
  void drain(Visit&& visit) {
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const size_t count = std::min(kPerChunk, size_ - c * kPerChunk);
      for (size_t i = 0; i < count; ++i) visit(std::as_const(chunks_[c][i]));
      std::free(chunks_[c]);
      chunks_[c] = nullptr;
    }
    chunks_.clear();
    size_ = 0;
  }
  void clear() {
    for (T* chunk : chunks_) std::free(chunk);
    chunks_.clear();
    size_ = 0;
  }

 private:
  std::vector<T*> chunks_;
  size_t size_ = 0;
};

}  // namespace ts
