#pragma once
// One object's control values: a view of its stretch of a Controls' flat array.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <coupler/wire/error.hpp>

namespace coupler {

// Indexed and iterated as a std::vector<double> is; assigning a list of
// another length throws coupler::Error naming the object and both counts,
// since every object's Control carries exactly its controls. Valid while the
// Controls it came from lives (moving the Controls keeps it valid).
// `T` is double, or const double for a const Controls' values.
template <class T>
class BasicValues {
 public:
  using value_type = std::remove_const_t<T>;
  using iterator = T*;
  using const_iterator = const T*;

  BasicValues(const std::string& object, T* data, std::size_t size) noexcept
      : object_(&object), data_(data), size_(size) {}
  // A const view of mutable values.
  template <class U, class = std::enable_if_t<std::is_const_v<T> && std::is_same_v<U, value_type>>>
  BasicValues(const BasicValues<U>& other) noexcept : BasicValues(other.object(), other.data(), other.size()) {}

  // Assigns the numbers, not the view.
  BasicValues& operator=(const BasicValues& other) { return assign(other.begin(), other.size()); }
  BasicValues& operator=(const std::vector<value_type>& values) { return assign(values.data(), values.size()); }
  BasicValues& operator=(std::initializer_list<value_type> values) { return assign(values.begin(), values.size()); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T* data() const noexcept { return data_; }
  T& operator[](std::size_t i) const noexcept { return data_[i]; }
  // Throws std::out_of_range past the end, as std::vector::at does.
  T& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("control index " + std::to_string(i) + " of '" + *object_ + "'");
    return data_[i];
  }
  T* begin() const noexcept { return data_; }
  T* end() const noexcept { return data_ + size_; }
  const std::string& object() const noexcept { return *object_; }

  std::vector<value_type> vector() const { return {begin(), end()}; }
  operator std::vector<value_type>() const { return vector(); }
  friend bool operator==(const BasicValues& a, const std::vector<value_type>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const std::vector<value_type>& a, const BasicValues& b) { return b == a; }
  friend bool operator!=(const BasicValues& a, const std::vector<value_type>& b) { return !(a == b); }
  friend bool operator!=(const std::vector<value_type>& a, const BasicValues& b) { return !(b == a); }

 private:
  BasicValues& assign(const value_type* values, std::size_t count) {
    static_assert(!std::is_const_v<T>, "the values of a const Controls cannot be assigned");
    if (count != size_) {
      throw Error("object '" + *object_ + "' has " + std::to_string(size_) + " controls, got " +
                  std::to_string(count) + " values");
    }
    std::copy(values, values + count, data_);
    return *this;
  }

  const std::string* object_;
  T* data_;
  std::size_t size_;
};

using Values = BasicValues<double>;
using ConstValues = BasicValues<const double>;

}  // namespace coupler
