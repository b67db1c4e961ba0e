// The three tensor types: their special members (where the value semantics
// and the borrow bookkeeping live), metadata and element access.
#include "flash_powder/core/tensor.h"

#include <cstring>
#include <string>

#include "abi/direct.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/detail/tensor_access.h"

namespace fp {
namespace {

/// `_lazy_clone`: a new TensorImpl sharing the storage copy-on-write, so the
/// copy costs nothing until one side writes. Memory libtorch did not allocate
/// (from_blob, mmap) cannot be shared that way; it is copied at once.
abi::TensorHandle lazy_clone(abi::RawTensor tensor) {
  if (tensor == nullptr) return {};
  try {
    return detail::TensorAccess::release(
        aten::_lazy_clone(detail::TensorAccess::unchecked(tensor)));
  } catch (const Error& error) {
    // libtorch refuses to share memory it did not allocate: copy it at once.
    if (error.code() != ErrorCode::TorchError) throw;
    return abi::clone(tensor, "aten::clone");
  }
}

/// Whether `tensor`'s memory can be read as elements of `dtype` without a
/// conversion. (flash_powder's tensors never carry lazy conjugation or negation
/// bits: see view_result in src/core/arguments.cpp.)
bool readable_as_is(abi::RawTensor tensor, DType dtype) {
  return abi::dtype(tensor) == dtype && abi::device(tensor).is_cpu() &&
         abi::layout(tensor) == Layout::Strided;
}

/// A CPU, contiguous copy of `tensor` with dtype `dtype`.
abi::TensorHandle cpu_contiguous(abi::RawTensor tensor, DType dtype) {
  return detail::TensorAccess::release(
      aten::_to_copy(detail::TensorAccess::unchecked(tensor), dtype, std::nullopt, Device::cpu(),
                     std::nullopt, false, MemoryFormat::Contiguous));
}

std::string cpp_type_name(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return "bool";
    case DType::U8:
      return "std::uint8_t";
    case DType::U16:
      return "std::uint16_t";
    case DType::U32:
      return "std::uint32_t";
    case DType::U64:
      return "std::uint64_t";
    case DType::I8:
      return "std::int8_t";
    case DType::I16:
      return "std::int16_t";
    case DType::I32:
      return "std::int32_t";
    case DType::I64:
      return "std::int64_t";
    case DType::F16:
      return "fp::Half";
    case DType::BF16:
      return "fp::BFloat16";
    case DType::F32:
      return "float";
    case DType::F64:
      return "double";
    case DType::C64:
      return "std::complex<float>";
    case DType::C128:
      return "std::complex<double>";
    default:
      return "";
  }
}

std::string accessor(const char* operation, DType wanted) {
  return std::string(operation) + "<" + cpp_type_name(wanted) + ">()";
}

/// Wraps `d` like PyTorch's maybe_wrap_dim, with PyTorch's messages.
std::int64_t wrap_dim(std::int64_t d, std::int64_t rank, const char* operation) {
  if (rank == 0) {
    throw Error(ErrorCode::BadArgument, std::string(operation) + ": Dimension specified as " +
                                            std::to_string(d) + " but tensor has no dimensions");
  }
  if (d < -rank || d >= rank) {
    throw Error(ErrorCode::BadArgument,
                std::string(operation) + ": Dimension out of range (expected to be in range of [" +
                    std::to_string(-rank) + ", " + std::to_string(rank - 1) + "], but got " +
                    std::to_string(d) + ")");
  }
  return d < 0 ? d + rank : d;
}

}  // namespace

// --- TensorBase ---------------------------------------------------------------

namespace detail {

abi::RawTensor TensorBase::defined_raw(const char* operation) const {
  if (!handle_) {
    throw Error(
        ErrorCode::BadArgument,
        std::string(operation) + ": the tensor is undefined (default-constructed or moved from)");
  }
  return handle_.get();
}

std::int64_t TensorBase::dim() const {
  return abi::dim(defined_raw("dim"));
}
std::span<const std::int64_t> TensorBase::sizes() const {
  return abi::sizes(defined_raw("sizes"));
}
std::span<const std::int64_t> TensorBase::strides() const {
  return abi::strides(defined_raw("strides"));
}
std::int64_t TensorBase::numel() const {
  return abi::numel(defined_raw("numel"));
}
DType TensorBase::dtype() const {
  return abi::dtype(defined_raw("dtype"));
}
Device TensorBase::device() const {
  return abi::device(defined_raw("device"));
}
Layout TensorBase::layout() const {
  return abi::layout(defined_raw("layout"));
}
bool TensorBase::is_contiguous() const {
  return abi::is_contiguous(defined_raw("is_contiguous"));
}
std::int64_t TensorBase::storage_offset() const {
  return abi::storage_offset(defined_raw("storage_offset"));
}

std::int64_t TensorBase::size(std::int64_t d) const {
  return sizes()[static_cast<std::size_t>(wrap_dim(d, dim(), "size"))];
}

std::int64_t TensorBase::stride(std::int64_t d) const {
  return strides()[static_cast<std::size_t>(wrap_dim(d, dim(), "stride"))];
}

Tensor TensorBase::to_owned() const {
  return Tensor(lazy_clone(handle_.get()));
}

const void* TensorBase::checked_data(DType wanted, const char* operation) const {
  const abi::RawTensor tensor = defined_raw(operation);
  const Device where = abi::device(tensor);
  if (!where.is_cpu()) {
    throw Error(ErrorCode::BadArgument, accessor(operation, wanted) + ": the tensor is on " +
                                            where.str() + "; copy it to the CPU first with .cpu()");
  }
  const DType actual = abi::dtype(tensor);
  if (actual != wanted) {
    const std::string matching = cpp_type_name(actual);
    throw Error(
        ErrorCode::BadArgument,
        accessor(operation, wanted) + ": the tensor is " + std::string(name(actual)) +
            (matching.empty() ? "" : "; use " + std::string(operation) + "<" + matching + ">()") +
            " or convert it with .to(fp::DType::...)");
  }
  if (!abi::is_contiguous(tensor)) {
    throw Error(ErrorCode::BadArgument,
                accessor(operation, wanted) +
                    ": the tensor is not contiguous; use .contiguous() or to_vector<T>()");
  }
  return abi::const_data_ptr(tensor);
}

void* TensorBase::checked_mutable_data(DType wanted, const char* operation) const {
  checked_data(wanted, operation);
  return abi::mutable_data_ptr(handle_.get());
}

namespace {

/// The element offset of `indices` in a tensor of `sizes` and `strides`.
std::int64_t element_offset(std::span<const std::int64_t> indices,
                            std::span<const std::int64_t> sizes,
                            std::span<const std::int64_t> strides, const std::string& operation) {
  if (indices.size() != sizes.size()) {
    throw Error(ErrorCode::BadArgument, operation + ": " + std::to_string(indices.size()) +
                                            " indices for a tensor of " +
                                            std::to_string(sizes.size()) + " dimensions");
  }
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < indices.size(); ++d) {
    std::int64_t index = indices[d];
    if (index < -sizes[d] || index >= sizes[d]) {
      throw Error(ErrorCode::BadArgument, operation + ": index " + std::to_string(index) +
                                              " is out of bounds for dimension " +
                                              std::to_string(d) + " with size " +
                                              std::to_string(sizes[d]));
    }
    if (index < 0) index += sizes[d];
    offset += index * strides[d];
  }
  return offset;
}

const void* checked_cpu_pointer(abi::RawTensor tensor, DType wanted, const std::string& operation) {
  const Device where = abi::device(tensor);
  if (!where.is_cpu()) {
    throw Error(ErrorCode::BadArgument, operation + ": the tensor is on " + where.str() +
                                            "; copy it to the CPU with .cpu()");
  }
  const DType actual = abi::dtype(tensor);
  if (actual != wanted) {
    throw Error(ErrorCode::BadArgument, operation + ": the tensor is " + std::string(name(actual)) +
                                            ", not " + std::string(name(wanted)));
  }
  return abi::const_data_ptr(tensor);
}

}  // namespace

const void* TensorBase::checked_element(DType wanted, std::span<const std::int64_t> indices,
                                        const char* operation) const {
  const abi::RawTensor tensor = defined_raw(operation);
  const std::string what = accessor(operation, wanted);
  const auto* base = static_cast<const char*>(checked_cpu_pointer(tensor, wanted, what));
  const auto offset = element_offset(indices, abi::sizes(tensor), abi::strides(tensor), what);
  return base + offset * static_cast<std::int64_t>(fp::element_size(wanted));
}

void* TensorBase::checked_mutable_element(DType wanted, std::span<const std::int64_t> indices,
                                          const char* operation) const {
  const abi::RawTensor tensor = defined_raw(operation);
  const std::string what = accessor(operation, wanted);
  checked_cpu_pointer(tensor, wanted, what);
  const auto offset = element_offset(indices, abi::sizes(tensor), abi::strides(tensor), what);
  auto* base = static_cast<char*>(abi::mutable_data_ptr(tensor));
  return base + offset * static_cast<std::int64_t>(fp::element_size(wanted));
}

void TensorBase::item_into(DType wanted, void* out) const {
  const abi::RawTensor tensor = defined_raw("item");
  const std::int64_t count = abi::numel(tensor);
  if (count != 1) {
    throw Error(ErrorCode::BadArgument, accessor("item", wanted) + ": a Tensor with " +
                                            std::to_string(count) +
                                            " elements cannot be converted to Scalar");
  }
  if (readable_as_is(tensor, wanted)) {  // one element: no stride matters
    std::memcpy(out, abi::const_data_ptr(tensor), fp::element_size(wanted));
    return;
  }
  const abi::TensorHandle converted = cpu_contiguous(tensor, wanted);
  std::memcpy(out, abi::const_data_ptr(converted.get()), fp::element_size(wanted));
}

void TensorBase::copy_out(DType wanted, void* out) const {
  const abi::RawTensor tensor = defined_raw("to_vector");
  if (abi::numel(tensor) == 0) return;
  const auto bytes = static_cast<std::size_t>(abi::numel(tensor)) * fp::element_size(wanted);
  if (readable_as_is(tensor, wanted) && abi::is_contiguous(tensor)) {
    std::memcpy(out, abi::const_data_ptr(tensor), bytes);
    return;
  }
  const abi::TensorHandle converted = cpu_contiguous(tensor, wanted);
  std::memcpy(out, abi::const_data_ptr(converted.get()), bytes);
}

}  // namespace detail

// --- TensorView -----------------------------------------------------------------

TensorView::TensorView(abi::TensorHandle handle, detail::BorrowState* owner, const char* origin)
    : TensorBase(std::move(handle)) {
  if (owner != nullptr) {
    owner->borrow_shared(origin);
    owner->retain();
    owner_ = owner;
  }
}

TensorView::TensorView(const Tensor& tensor)
    : TensorView(tensor.raw() ? abi::share(tensor.raw()) : abi::TensorHandle(),
                 detail::TensorAccess::borrow_state(tensor), "a view of a Tensor") {}

TensorView::TensorView(Tensor&& tensor) noexcept : TensorBase(std::move(tensor.handle_)) {}

TensorView::TensorView(const TensorMutView& view)
    : TensorView(view.raw() ? abi::share(view.raw()) : abi::TensorHandle(),
                 detail::TensorAccess::borrow_state(view), "a view of a TensorMutView") {}

TensorView::TensorView(const TensorView& other)
    : TensorView(other.handle_ ? other.handle_.share() : abi::TensorHandle(), other.owner_,
                 "a copy of a TensorView") {}

TensorView::TensorView(TensorView&& other) noexcept
    : TensorBase(std::move(other.handle_)), owner_(std::exchange(other.owner_, nullptr)) {}

TensorView& TensorView::operator=(const TensorView& other) {
  if (this != &other) *this = TensorView(other);
  return *this;
}

TensorView& TensorView::operator=(TensorView&& other) noexcept {
  if (this != &other) {
    release_borrow();
    handle_ = std::move(other.handle_);
    owner_ = std::exchange(other.owner_, nullptr);
  }
  return *this;
}

TensorView::~TensorView() {
  release_borrow();
}

void TensorView::release_borrow() noexcept {
  if (owner_ != nullptr) {
    owner_->return_shared();
    detail::BorrowState::release(std::exchange(owner_, nullptr));
  }
}

// --- TensorMutView --------------------------------------------------------------

TensorMutView::TensorMutView(abi::TensorHandle handle, detail::BorrowState* parent,
                             const char* origin)
    : TensorBase(std::move(handle)) {
  if (parent != nullptr) {
    parent->borrow_exclusive(origin);
    parent->retain();
    parent_ = parent;
  }
}

TensorMutView::TensorMutView(TensorMutView&& other) noexcept
    : TensorBase(std::move(other.handle_)),
      parent_(std::exchange(other.parent_, nullptr)),
      own_(other.own_.exchange(nullptr)) {}

TensorMutView& TensorMutView::operator=(TensorMutView&& other) noexcept {
  if (this != &other) {
    release_borrows();
    handle_ = std::move(other.handle_);
    parent_ = std::exchange(other.parent_, nullptr);
    own_.store(other.own_.exchange(nullptr));
  }
  return *this;
}

TensorMutView::~TensorMutView() {
  release_borrows();
}

void TensorMutView::release_borrows() noexcept {
  if (parent_ != nullptr) {
    parent_->return_exclusive();
    detail::BorrowState::release(std::exchange(parent_, nullptr));
  }
  detail::BorrowState::release(own_.exchange(nullptr));
}

namespace {
detail::BorrowState* lazily_created(std::atomic<detail::BorrowState*>& slot, const char* owner) {
#if FP_BORROW_CHECK
  if (auto* existing = slot.load(std::memory_order_acquire)) return existing;
  auto* fresh = new detail::BorrowState(owner);
  detail::BorrowState* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return fresh;
  delete fresh;  // another thread was first
  return expected;
#else
  (void)slot;
  (void)owner;
  return nullptr;
#endif
}
}  // namespace

detail::BorrowState* TensorMutView::borrow_state() const {
  return lazily_created(own_, "TensorMutView");
}

// --- Tensor ---------------------------------------------------------------------

Tensor::Tensor(const TensorView& view) : TensorBase(lazy_clone(view.raw())) {}

Tensor::Tensor(const Tensor& other) : TensorBase(lazy_clone(other.raw())) {}

// A moved Tensor takes its borrow state along: views of the old object are
// views of the data that now lives here.
Tensor::Tensor(Tensor&& other) noexcept
    : TensorBase(std::move(other.handle_)), borrow_(other.borrow_.exchange(nullptr)) {}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) *this = Tensor(other);
  return *this;
}

// Assignment replaces the TensorImpl this object refers to; views of the old
// value keep their own handles and still see the old, unchanged data.
Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    handle_ = std::move(other.handle_);
    detail::BorrowState::release(borrow_.exchange(other.borrow_.exchange(nullptr)));
  }
  return *this;
}

Tensor::~Tensor() {
  detail::BorrowState::release(borrow_.exchange(nullptr));
}

detail::BorrowState* Tensor::borrow_state() const {
  return lazily_created(borrow_, "Tensor");
}

namespace detail {

Tensor independent(abi::TensorHandle handle) {
  return Tensor(lazy_clone(handle.get()));
}

}  // namespace detail
}  // namespace fp
