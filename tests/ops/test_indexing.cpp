// Every index expression against the same expression in Python: shape,
// strides and values; views alias, index() copies.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "support/expect_error.h"
#include "support/shapes.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

using fp_test::shape;
using fp_test::strides;

using fp::Tensor;
using fp::TensorView;

/// torch.arange(1., 17.).reshape(4, 4) as in the seed, `d` in the Python blocks.
Tensor seed_matrix() {
  return fp::arange(1.0, 17.0).reshape({4, 4});
}

/*
#|PYTHON_GLOBAL
d = torch.arange(1., 17.).reshape(4, 4)
c = torch.arange(24.).reshape(2, 3, 4)
def describe(t):
    return [list(t.shape), list(t.stride()), t.storage_offset(), t.flatten().tolist()]
*/

struct Described {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset;
  std::vector<double> values;
};

void expect_described(const fp::detail::TensorBase& t, const std::vector<int64_t>& sizes,
                      const std::vector<int64_t>& strides_, int64_t offset,
                      const std::vector<double>& values) {
  EXPECT_EQ(shape(t), sizes);
  EXPECT_EQ(strides(t), strides_);
  EXPECT_EQ(t.storage_offset(), offset);
  EXPECT_EQ(t.to_vector<double>(), values);
}

TEST(Indexing, SeedExamples) {
  const Tensor d = seed_matrix();
  const TensorView z = d.i(fp::slice(1, 3), fp::slice(0, 1));
  EXPECT_EQ(shape(z), (std::vector<int64_t>{2, 1}));  // #PYTHON list(d[1:3, 0:1].shape)
  const TensorView w = d.i(fp::slice(-3, 3), fp::slice(-3, 3));
  EXPECT_EQ(shape(w), (std::vector<int64_t>{2, 2}));  // #PYTHON list(d[-3:3, -3:3].shape)
  EXPECT_EQ(w.to_vector<double>(), truth<std::vector<double>>("d[-3:3, -3:3].flatten().tolist()"));
}

TEST(Indexing, IntegersSlicesAllEllipsisNewaxis) {
  const Tensor c = fp::arange(24.0).reshape({2, 3, 4});
  /*
  #|PYTHON
  cases = [c[1], c[-1, 2], c[:, 1], c[..., -1], c[None], c[1, None, :, 2], c[::2], c[:, ::2, 1:],
           c[0, 1:100], c[:, -100:2], c[..., None], c[1, ..., 2], c[:, :, 3:1], c[-2]]
  described = [describe(t) for t in cases]
  */
  const std::vector<TensorView> cases = {
      c.i(1),
      c.i(-1, 2),
      c.i(fp::all, 1),
      c.i(fp::ellipsis, -1),
      c.i(fp::newaxis),
      c.i(1, fp::newaxis, fp::all, 2),
      c.i(fp::slice(fp::end, fp::end, 2)),
      c.i(fp::all, fp::slice(fp::end, fp::end, 2), fp::slice(1, fp::end)),
      c.i(0, fp::slice(1, 100)),
      c.i(fp::all, fp::slice(-100, 2)),
      c.i(fp::ellipsis, fp::newaxis),
      c.i(1, fp::ellipsis, 2),
      c.i(fp::all, fp::all, fp::slice(3, 1)),
      c.i(-2),
  };
  const std::vector<std::vector<int64_t>> sizes =
      truth<std::vector<std::vector<int64_t>>>("[x[0] for x in described]");
  const std::vector<std::vector<int64_t>> strides_ =
      truth<std::vector<std::vector<int64_t>>>("[x[1] for x in described]");
  const std::vector<int64_t> offsets = {12, 20, 4, 3,  0, 14, 0, 1,
                                        4,  0,  0, 14, 3, 0};  // #PYTHON [x[2] for x in described]
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[x[3] for x in described]");
  ASSERT_EQ(cases.size(), sizes.size());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    SCOPED_TRACE("case " + std::to_string(k));
    expect_described(cases[k], sizes[k], strides_[k], offsets[k], values[k]);
  }
}

TEST(Indexing, ViewsAliasTheParent) {
  Tensor d = seed_matrix();
  {
    fp::TensorMutView column = d.i_mut(fp::all, 1);
    column.fill_(0);
    column.i_mut(2).fill_(-7);
  }
  EXPECT_EQ(d.at<float>({2, 1}), -7.f);
  EXPECT_EQ(d.at<float>({3, 1}), 0.f);
  {
    fp::TensorMutView every_other = d.i_mut(fp::slice(fp::end, fp::end, 2));
    every_other += 100;
  }
  /*
  #|PYTHON
  e = d.clone()
  e[:, 1] = 0
  e[2, 1] = -7
  e[::2] += 100
  */
  EXPECT_EQ(d.to_vector<double>(), truth<std::vector<double>>("e.flatten().tolist()"));
}

TEST(Indexing, AdvancedIndexingCopies) {
  /*
  #|PYTHON
  rows = torch.tensor([3, 0, 0])
  mask = d[:, 0] > 4
  by_rows = d[rows]
  by_cols = d[:, rows]
  pairs = d[rows, torch.tensor([1, 2, 3])]
  masked = d[mask]
  mixed = d[1:, rows]
  first = c[0, torch.tensor([2, 1])]
  spread = c[torch.tensor([1]), :, torch.tensor([0, 3])]
  */
  Tensor d = seed_matrix();
  const Tensor c = fp::arange(24.0).reshape({2, 3, 4});
  const Tensor rows = fp::tensor({int64_t{3}, int64_t{0}, int64_t{0}});
  const Tensor mask = d.i(fp::all, 0) > 4;
  const Tensor by_rows = d.index(rows);
  EXPECT_EQ(shape(by_rows), (std::vector<int64_t>{3, 4}));  // #PYTHON list(by_rows.shape)
  EXPECT_EQ(by_rows.to_vector<double>(), truth<std::vector<double>>("by_rows.flatten().tolist()"));
  EXPECT_EQ(d.index(fp::all, rows).to_vector<double>(),
            truth<std::vector<double>>("by_cols.flatten().tolist()"));
  EXPECT_EQ(d.index(rows, fp::tensor({int64_t{1}, int64_t{2}, int64_t{3}})).to_vector<double>(),
            truth<std::vector<double>>("pairs.tolist()"));
  EXPECT_EQ(d.index(mask).to_vector<double>(),
            truth<std::vector<double>>("masked.flatten().tolist()"));
  EXPECT_EQ(shape(d.index(fp::slice(1, fp::end), rows)),
            (std::vector<int64_t>{3, 3}));  // #PYTHON list(mixed.shape)
  EXPECT_EQ(c.index(0, fp::tensor({int64_t{2}, int64_t{1}})).to_vector<double>(),
            truth<std::vector<double>>("first.flatten().tolist()"));
  EXPECT_EQ(shape(c.index(fp::tensor({int64_t{1}}), fp::all, fp::tensor({int64_t{0}, int64_t{3}}))),
            (std::vector<int64_t>{2, 3}));  // #PYTHON list(spread.shape)
  // A copy: writing the source afterwards leaves it unchanged.
  d.fill_(0);
  EXPECT_NE(by_rows.at<float>({0, 0}), 0.f);
}

TEST(Indexing, IndexPut) {
  /*
  #|PYTHON
  e = d.clone()
  e[torch.tensor([0, 2])] = 0.
  e[1:3, torch.tensor([3])] = torch.tensor([[-1.], [-2.]])
  e.index_put_((torch.tensor([3, 3]), torch.tensor([0, 0])), torch.tensor([10., 10.]), accumulate=True)
  e[e > 14] = 99
  */
  Tensor d = seed_matrix();
  d.index_put_({fp::tensor({int64_t{0}, int64_t{2}})}, 0.0);
  d.index_put_({fp::slice(1, 3), fp::tensor({int64_t{3}})}, fp::tensor({{-1.f}, {-2.f}}));
  d.index_put_({fp::tensor({int64_t{3}, int64_t{3}}), fp::tensor({int64_t{0}, int64_t{0}})},
               fp::tensor({10.f, 10.f}), true);
  const Tensor big = d > 14;
  d.index_put_({big}, 99);
  EXPECT_EQ(d.to_vector<double>(), truth<std::vector<double>>("e.flatten().tolist()"));
}

TEST(IndexingErrors, PyTorchsMessages) {
  /*
  #|PYTHON
  from truth_helpers import message
  out_of_range = message(lambda: d[4])
  negative = message(lambda: d[:, -5])
  too_many = message(lambda: d[0, 0, 0])
  two_ellipses = list(d[..., ...].shape)
  step = message(lambda: d[::-1])
  bad_index = message(lambda: d[torch.tensor([7])])
  */
  const Tensor d = seed_matrix();
  const std::string out_of_range =
      "index 4 is out of bounds for dimension 0 with size 4";  // #PYTHON out_of_range
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, out_of_range, d.i(4));
  const std::string negative =
      "index -5 is out of bounds for dimension 1 with size 4";  // #PYTHON negative
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, negative, d.i(fp::all, -5));
  const std::string too_many = "too many indices for tensor of dimension 2";  // #PYTHON too_many
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, too_many, d.i(0, 0, 0));
  EXPECT_EQ(shape(d.i(fp::ellipsis, fp::ellipsis)),
            (std::vector<int64_t>{4, 4}));                    // #PYTHON two_ellipses
  const std::string step = "step must be greater than zero";  // #PYTHON step
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, step, d.i(fp::slice(fp::end, fp::end, -1)));
  const std::string bad_index =
      "index 7 is out of bounds for dimension 0 with size 4";  // #PYTHON bad_index
  EXPECT_TORCH_ERROR(bad_index, d.index(fp::tensor({int64_t{7}})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "undefined", Tensor().i(0));
}

#if FP_BORROW_CHECK
TEST(IndexingErrors, MutableViewsAreExclusive) {
  Tensor d = seed_matrix();
  fp::TensorMutView row = d.i_mut(0);
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow,
                  "fp::BorrowError: cannot take a TensorMutView (i_mut()) of a Tensor while a "
                  "TensorMutView of it (i_mut()) is alive",
                  d.i_mut(1));
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "fp::BorrowError", d.i(1));
}
#endif

}  // namespace
