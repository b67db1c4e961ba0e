// The promise of the three tensor types: values are independent, views share,
// mutable views write through, and the debug borrow checker catches the rest.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <thread>

#include "support/expect_error.h"

namespace {

using fp::Tensor;
using fp::TensorMutView;
using fp::TensorView;

Tensor counting() {
  return fp::tensor({{0.f, 1.f, 2.f}, {3.f, 4.f, 5.f}});
}

/// A mutable view of the whole tensor, made without indexing.
TensorMutView mutable_view_of(Tensor& tensor) {
  using fp::detail::TensorAccess;
  return TensorAccess::mut_view(fp::abi::share(tensor.raw()), TensorAccess::borrow_state(tensor),
                                "mutable_view_of()");
}

TEST(TensorValue, CopiesAreIndependent) {
  Tensor original = counting();
  Tensor copy = original;
  copy.data_mut<float>()[0] = 100.f;
  EXPECT_EQ(original.data<float>()[0], 0.f);
  original.data_mut<float>()[1] = 50.f;
  EXPECT_EQ(copy.data<float>()[1], 1.f);
}

TEST(TensorValue, CopyAssignmentIsIndependent) {
  Tensor original = counting();
  Tensor copy;
  copy = original;
  original.data_mut<float>()[5] = -1.f;
  EXPECT_EQ(copy.data<float>()[5], 5.f);
  const Tensor& same = copy;  // through a reference: compilers warn on a literal `copy = copy`
  copy = same;                // self-assignment keeps the value
  EXPECT_EQ(copy.data<float>()[5], 5.f);
}

TEST(TensorValue, CopiesOfForeignMemoryAreIndependent) {
  std::vector<float> buffer{1.f, 2.f, 3.f};
  const TensorMutView blob = fp::from_blob(std::span<float>(buffer), {3});
  Tensor copy{TensorView(blob)};
  buffer[0] = 9.f;
  EXPECT_EQ(copy.data<float>()[0], 1.f);
}

TEST(TensorValue, MoveLeavesAnUndefinedTensor) {
  Tensor original = counting();
  const fp::abi::RawTensor raw = original.raw();
  Tensor moved = std::move(original);
  EXPECT_EQ(moved.raw(), raw);
  EXPECT_FALSE(original.is_defined());  // NOLINT(bugprone-use-after-move): defined state
  Tensor assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.raw(), raw);
}

TEST(TensorValue, UndefinedTensorsCopyAndReportClearly) {
  const Tensor undefined;
  const Tensor copy = undefined;
  EXPECT_FALSE(copy.is_defined());
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "sizes: the tensor is undefined (default-constructed or moved from)",
                        copy.sizes());
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "numel: the tensor is undefined (default-constructed or moved from)",
                        copy.numel());
}

TEST(TensorView, SharesDataAndOutlivesItsParent) {
  std::optional<Tensor> parent = counting();
  const TensorView view = *parent;
  parent.reset();  // the view keeps the memory alive
  EXPECT_EQ(view.data<float>()[4], 4.f);
}

TEST(TensorView, OfATemporaryTakesItsData) {
  const TensorView view = counting().transpose(0, 1).to_owned();
  EXPECT_EQ(view.at<float>({2, 1}), 5.f);
  Tensor named = counting();
  const TensorView moved = std::move(named);
  EXPECT_FALSE(named.is_defined());  // NOLINT(bugprone-use-after-move): defined state
  EXPECT_EQ(moved.numel(), 6);
}

TEST(TensorView, ConvertsToAnIndependentTensorOnlyExplicitly) {
  Tensor parent = counting();
  Tensor owned;
  {
    const TensorView view = parent;
    owned = view.to_owned();
    Tensor also{view};
    EXPECT_EQ(also.data<float>()[2], 2.f);
  }
  parent.data_mut<float>()[2] = 7.f;
  EXPECT_EQ(owned.data<float>()[2], 2.f);
}

TEST(TensorMutView, WritesReachTheParent) {
  Tensor parent = counting();
  {
    TensorMutView view = mutable_view_of(parent);
    view.data_mut<float>()[3] = 30.f;
    view.at_mut<float>({1, 2}) = 50.f;
  }
  EXPECT_EQ(parent.data<float>()[3], 30.f);
  EXPECT_EQ(parent.at<float>({1, 2}), 50.f);
}

TEST(TensorMutView, MovesKeepTheBorrow) {
  Tensor parent = counting();
  TensorMutView first = mutable_view_of(parent);
  TensorMutView second = std::move(first);
  second.data_mut<float>()[0] = 8.f;
  EXPECT_EQ(parent.data<float>()[0], 8.f);
}

TEST(TensorTypes, StayTwoPointersWide) {
  EXPECT_LE(sizeof(Tensor), 2 * sizeof(void*));
  static_assert(std::is_copy_constructible_v<Tensor>);
  static_assert(std::is_copy_constructible_v<TensorView>);
  static_assert(!std::is_copy_constructible_v<TensorMutView>);
  static_assert(std::is_nothrow_move_constructible_v<TensorMutView>);
  static_assert(std::is_convertible_v<const Tensor&, TensorView>);
  static_assert(std::is_convertible_v<const TensorMutView&, TensorView>);
  static_assert(!std::is_convertible_v<TensorView, Tensor>);   // explicit only
  static_assert(std::is_convertible_v<Tensor&&, TensorView>);  // takes over a temporary
}

// --- the debug borrow checker (FP_BORROW_CHECK is on in the test build) -----------

#if FP_BORROW_CHECK

TEST(BorrowChecker, MutatingATensorWhileAViewLivesThrows) {
  Tensor parent = counting();
  const TensorView view = parent;
  EXPECT_FP_ERROR(
      fp::ErrorCode::Borrow,
      "fp::BorrowError: cannot call data_mut() on a Tensor while 1 TensorView of it (latest: a "
      "view of a Tensor) is alive",
      parent.data_mut<float>());
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "cannot call at_mut() on a Tensor",
                  parent.at_mut<float>({0, 0}));
}

TEST(BorrowChecker, ErrorsAreBorrowErrors) {
  Tensor parent = counting();
  const TensorView view = parent;
  EXPECT_THROW(parent.data_mut<float>(), fp::BorrowError);
}

TEST(BorrowChecker, MutatingAfterTheViewsAreGoneIsFine) {
  Tensor parent = counting();
  { const TensorView view = parent; }
  EXPECT_NO_THROW(parent.data_mut<float>()[0] = 1.f);
}

TEST(BorrowChecker, CopiesOfViewsCountAsViews) {
  Tensor parent = counting();
  std::optional<TensorView> first(std::in_place, parent);
  const TensorView second = *first;
  first.reset();
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "while 1 TensorView of it", parent.data_mut<float>());
}

TEST(BorrowChecker, AMutableViewExcludesOtherViews) {
  Tensor parent = counting();
  const TensorView reader = parent;
  EXPECT_FP_ERROR(
      fp::ErrorCode::Borrow,
      "fp::BorrowError: cannot take a TensorMutView (mutable_view_of()) of a Tensor while 1 "
      "TensorView of it (a view of a Tensor) is alive",
      mutable_view_of(parent));
}

TEST(BorrowChecker, OneMutableViewAtATime) {
  Tensor parent = counting();
  TensorMutView writer = mutable_view_of(parent);
  EXPECT_FP_ERROR(
      fp::ErrorCode::Borrow,
      "cannot take a TensorMutView (mutable_view_of()) of a Tensor while a TensorMutView of it",
      mutable_view_of(parent));
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow,
                  "cannot take a TensorView (a view of a Tensor) of a Tensor while a "
                  "TensorMutView of it (mutable_view_of()) is alive",
                  TensorView{parent});
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow,
                  "cannot call data_mut() on a Tensor while a TensorMutView of it",
                  parent.data_mut<float>());
}

TEST(BorrowChecker, ViewsOfAMutableViewFreezeIt) {
  Tensor parent = counting();
  TensorMutView writer = mutable_view_of(parent);
  {
    const TensorView reader = writer;
    EXPECT_FP_ERROR(fp::ErrorCode::Borrow,
                    "cannot call data_mut() on a TensorMutView while 1 TensorView of it",
                    writer.data_mut<float>());
  }
  EXPECT_NO_THROW(writer.data_mut<float>()[0] = 3.f);
}

TEST(BorrowChecker, AMovedTensorKeepsItsViews) {
  Tensor parent = counting();
  const TensorView view = parent;
  Tensor moved = std::move(parent);
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "while 1 TensorView of it", moved.data_mut<float>());
}

TEST(BorrowChecker, AssigningANewValueIsNotAMutation) {
  // The view keeps its own handle to the old data, which nothing changes.
  Tensor parent = counting();
  const TensorView view = parent;
  parent = fp::tensor({9.f});
  EXPECT_EQ(view.data<float>()[1], 1.f);
  EXPECT_EQ(parent.data<float>()[0], 9.f);
}

TEST(BorrowChecker, CopiesAreNotBorrows) {
  Tensor parent = counting();
  const Tensor copy = parent;
  EXPECT_NO_THROW(parent.data_mut<float>()[0] = 1.f);
}

TEST(BorrowChecker, IsThreadSafe) {
  Tensor parent = counting();
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&parent] {
      for (int i = 0; i < 1000; ++i) {
        const TensorView view = parent;
        EXPECT_EQ(view.numel(), 6);
      }
    });
  }
  for (auto& reader : readers)
    reader.join();
  EXPECT_NO_THROW(parent.data_mut<float>()[0] = 1.f);
}

#else

TEST(BorrowChecker, CompiledOut) {
  Tensor parent = counting();
  const TensorView view = parent;
  EXPECT_NO_THROW(parent.data_mut<float>()[0] = 1.f);
  EXPECT_EQ(fp::detail::TensorAccess::borrow_state(parent), nullptr);
}

#endif

}  // namespace
