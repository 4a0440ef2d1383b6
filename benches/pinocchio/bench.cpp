// Pinocchio's side of benches/pinocchio/compare.sh: `aba`, `rnea`, `crba` and a frame
// Jacobian for the robots of benches/robots.rs, at the states that bench uses.
//
// The robots and their states are not written here: they are read from the file that
// `LAGRANGE_PINOCCHIO_STATES=<file> cargo bench --bench robots` writes (one record a
// line, `key robot values...`: `robot` (URDF path relative to the repository, frame, base:
// `fixed` or `free_flyer`), `joints` (lagrange's coordinates), `q`, `v`, `a`, `tau` in
// Pinocchio's terms, and lagrange's `crba`, `rnea`, `aba`, `jacobian` at that state, mapped
// to Pinocchio's velocities for a floating base: benches/pinocchio/README.md). A robot
// added to benches/robots.rs is therefore benchmarked here too.
//
// Usage: bench <states file> <repository root> [milliseconds per call, default 1000;
//        0 for the checks alone]
//
// Prints, one a line:
//   joints <robot> <name>...                          Pinocchio's joint order
//   value <robot> crba00 <M(0,0)>                     a number to eyeball
//   check <robot> <call> <max |lagrange - pinocchio|> <scale = max(1, max |pinocchio|)>
//   time <robot> <call> <median ns per call> <batches> <calls per batch>
// and exits non-zero if the joints differ from lagrange's coordinates or a check is
// off by more than 1e-9 relative.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "pinocchio/algorithm/aba.hpp"
#include "pinocchio/algorithm/aba-derivatives.hpp"
#include "pinocchio/algorithm/constrained-dynamics.hpp"
#include "pinocchio/algorithm/constrained-dynamics-derivatives.hpp"
#include "pinocchio/algorithm/impulse-dynamics.hpp"
#include "pinocchio/algorithm/crba.hpp"
#include "pinocchio/algorithm/frames.hpp"
#include "pinocchio/algorithm/jacobian.hpp"
#include "pinocchio/algorithm/rnea.hpp"
#include "pinocchio/algorithm/rnea-derivatives.hpp"
#include "pinocchio/multibody.hpp"
#include "pinocchio/parsers/urdf.hpp"

namespace {

struct Robot {
  std::string name;
  std::map<std::string, std::vector<std::string>> records;  // key -> values

  bool has(const std::string &key) const { return records.count(key) > 0; }

  const std::vector<std::string> &get(const std::string &key) const {
    auto it = records.find(key);
    if (it == records.end()) {
      std::fprintf(stderr, "bench: no `%s` record for %s\n", key.c_str(), name.c_str());
      std::exit(2);
    }
    return it->second;
  }

  Eigen::VectorXd vector(const std::string &key) const {
    const auto &words = get(key);
    Eigen::VectorXd x(static_cast<Eigen::Index>(words.size()));
    for (std::size_t i = 0; i < words.size(); ++i) x[static_cast<Eigen::Index>(i)] = std::strtod(words[i].c_str(), nullptr);
    return x;
  }

  // Row-major in the file.
  Eigen::MatrixXd matrix(const std::string &key, Eigen::Index rows, Eigen::Index cols) const {
    Eigen::VectorXd x = vector(key);
    if (x.size() != rows * cols) {
      std::fprintf(stderr, "bench: `%s` of %s has %ld numbers, not %ld x %ld\n", key.c_str(),
                   name.c_str(), static_cast<long>(x.size()), static_cast<long>(rows),
                   static_cast<long>(cols));
      std::exit(2);
    }
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = x[i * cols + j];
    return m;
  }
};

std::vector<Robot> read_robots(const std::string &path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<Robot> robots;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, name, w;
    if (!(words >> key >> name)) continue;
    std::vector<std::string> values;
    while (words >> w) values.push_back(w);
    auto it = std::find_if(robots.begin(), robots.end(), [&](const Robot &r) { return r.name == name; });
    if (it == robots.end()) {
      robots.push_back(Robot{name, {}});
      it = robots.end() - 1;
    }
    it->records[key] = values;
  }
  return robots;
}

// Keeps the compiler from dropping or hoisting work whose result goes to memory.
inline void clobber() { asm volatile("" : : : "memory"); }

// Median ns per call of `f` over batches of about 1 ms, after a warm-up; about `budget_ms` in all.
struct Timing {
  double median_ns;
  int batches;
  long per_batch;
};

template <typename F>
Timing time_it(F &&f, double budget_ms) {
  using clock = std::chrono::steady_clock;
  auto ns_since = [](clock::time_point t0) {
    return std::chrono::duration<double, std::nano>(clock::now() - t0).count();
  };
  // Warm-up (a tenth of the budget) and the batch size for batches of ~1 ms.
  long calls = 0;
  auto t0 = clock::now();
  while (ns_since(t0) < budget_ms * 1e5) {
    f();
    clobber();
    ++calls;
  }
  double per_call = ns_since(t0) / static_cast<double>(calls);
  long per_batch = std::max(1L, static_cast<long>(1e6 / per_call));
  int batches = std::max(10, static_cast<int>(budget_ms * 0.9));
  std::vector<double> t(static_cast<std::size_t>(batches));
  for (auto &ti : t) {
    auto b0 = clock::now();
    for (long i = 0; i < per_batch; ++i) {
      f();
      clobber();
    }
    ti = ns_since(b0) / static_cast<double>(per_batch);
  }
  std::nth_element(t.begin(), t.begin() + batches / 2, t.end());
  return {t[static_cast<std::size_t>(batches / 2)], batches, per_batch};
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <states file> <repository root> [ms per call]\n", argv[0]);
    return 2;
  }
  const std::string root = argv[2];
  const double budget_ms = argc > 3 ? std::atof(argv[3]) : 1000.0;
  bool ok = true;
  for (const Robot &r : read_robots(argv[1])) {
    const auto &where = r.get("robot");  // URDF path, frame, base
    const std::string base = where.size() > 2 ? where.at(2) : "fixed";
    if (base != "fixed" && base != "free_flyer") {
      std::fprintf(stderr, "bench: %s: unknown base `%s`\n", r.name.c_str(), base.c_str());
      return 2;
    }
    const bool floating = base == "free_flyer";
    pinocchio::Model model;
    // <mimic> ignored (every non-fixed joint a DOF), as tests/robots/reference.py. A fixed
    // base has no root joint; a floating one is Pinocchio's free flyer, whose q is
    // (x y z, qx qy qz qw, joints) and v the base's velocity in its own frame, then the
    // joint rates: the values of the states file are mapped to these already.
    if (floating) {
      pinocchio::urdf::buildModel(root + "/" + where.at(0), pinocchio::JointModelFreeFlyer(), model);
    } else {
      pinocchio::urdf::buildModel(root + "/" + where.at(0), model);
    }
    pinocchio::Data data(model);

    // Pinocchio's joint order must be lagrange's order of coordinates (after the seven of
    // a floating base, which stand for Pinocchio's `root_joint`).
    std::vector<std::string> names(model.names.begin() + 1, model.names.end());
    std::printf("joints %s", r.name.c_str());
    for (const auto &n : names) std::printf(" %s", n.c_str());
    std::printf("\n");
    const std::vector<std::string> flyer = {"base_x",  "base_y",  "base_z", "base_qw",
                                            "base_qx", "base_qy", "base_qz"};
    std::vector<std::string> expected = r.get("joints");
    bool same = true;
    if (floating) {
      same = expected.size() >= flyer.size() && std::equal(flyer.begin(), flyer.end(), expected.begin()) &&
             !names.empty() && names.front() == "root_joint" &&
             model.joints[1].shortname() == "JointModelFreeFlyer";
      if (same) {
        expected.erase(expected.begin(), expected.begin() + static_cast<long>(flyer.size()));
        names.erase(names.begin());
      }
    }
    const int extra = floating ? 1 : 0;  // nq - nv
    if (!same || names != expected || model.nq != model.nv + extra ||
        static_cast<std::size_t>(model.nq) != r.get("joints").size()) {
      std::fprintf(stderr,
                   "bench: %s: Pinocchio's joints (nq = %d, nv = %d, base %s) are not lagrange's "
                   "coordinates (see benches/pinocchio/README.md)\n",
                   r.name.c_str(), model.nq, model.nv, base.c_str());
      ok = false;
      continue;
    }
    const Eigen::Index n = model.nv;
    const Eigen::VectorXd q = r.vector("q"), v = r.vector("v"), a = r.vector("a"),
                          tau = r.vector("tau");
    if (q.size() != model.nq || v.size() != n || a.size() != n || tau.size() != n) {
      std::fprintf(stderr, "bench: %s: a state of the wrong size\n", r.name.c_str());
      return 2;
    }
    if (!model.existFrame(where.at(1))) {
      std::fprintf(stderr, "bench: %s: no frame %s\n", r.name.c_str(), where.at(1).c_str());
      return 2;
    }
    const pinocchio::FrameIndex frame = model.getFrameId(where.at(1));
    pinocchio::Data::Matrix6x jacobian = pinocchio::Data::Matrix6x::Zero(6, n);

    // The values, against lagrange's.
    Eigen::MatrixXd mass = pinocchio::crba(model, data, q);
    mass.triangularView<Eigen::StrictlyLower>() = mass.transpose().triangularView<Eigen::StrictlyLower>();
    const Eigen::VectorXd rnea = pinocchio::rnea(model, data, q, v, a);
    const Eigen::VectorXd aba = pinocchio::aba(model, data, q, v, tau);
    pinocchio::computeJointJacobians(model, data, q);
    pinocchio::getFrameJacobian(model, data, frame, pinocchio::LOCAL_WORLD_ALIGNED, jacobian);
    std::printf("value %s crba00 %.17g\n", r.name.c_str(), mass(0, 0));
    auto check = [&](const char *call, const Eigen::MatrixXd &pin, const Eigen::MatrixXd &lagrange) {
      const double err = (pin - lagrange).cwiseAbs().maxCoeff();
      const double scale = std::max(1.0, pin.cwiseAbs().maxCoeff());
      std::printf("check %s %s %.3e %.3e\n", r.name.c_str(), call, err, scale);
      if (!(err <= 1e-9 * scale)) ok = false;
    };
    check("crba", mass, r.matrix("crba", n, n));
    check("rnea", rnea, r.vector("rnea"));
    check("aba", aba, r.vector("aba"));
    check("jacobian", jacobian, r.matrix("jacobian", 6, n));

    // Contacts (the Solo-12's feet, the G1's soles), when the robot declares them: every one
    // active, in LOCAL_WORLD_ALIGNED, solved exactly (mu = 0), as lagrange's
    // `contact_dynamics` with all of its contacts on.
    typedef pinocchio::RigidConstraintModelTpl<double, 0> ContactModel;
    typedef pinocchio::RigidConstraintDataTpl<double, 0> ContactData;
    PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(ContactModel) contact_models;
    PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(ContactData) contact_datas;
    if (r.has("contacts")) {
      const auto &c = r.get("contacts");  // kind, frames...
      const auto type = c.at(0) == "6d" ? pinocchio::CONTACT_6D : pinocchio::CONTACT_3D;
      for (std::size_t k = 1; k < c.size(); ++k) {
        const auto &frame = model.frames[model.getFrameId(c[k])];
        contact_models.emplace_back(type, model, frame.parentJoint, frame.placement,
                                    pinocchio::LOCAL_WORLD_ALIGNED);
        contact_datas.emplace_back(contact_models.back());
      }
      pinocchio::initConstraintDynamics(model, data, contact_models, contact_datas);
      pinocchio::ProximalSettings exact(1e-14, 0.0, 1);
      // At the velocity that leaves every contact at rest (`contact_v`), where Pinocchio's
      // 6D contacts (the frame's spatial acceleration) agree with lagrange's frame contacts.
      const Eigen::VectorXd contact_a = pinocchio::constraintDynamics(
          model, data, q, r.vector("contact_v"), tau, contact_models, contact_datas, exact);
      check("constraintDynamics", contact_a, r.vector("contact_a"));
    }

    if (budget_ms <= 0) continue;
    // The timings. Inputs pass through an opaque copy so that nothing is known of them.
    Eigen::VectorXd qx = q, vx = v, ax = a, taux = tau;
    asm volatile("" : : "r"(qx.data()), "r"(vx.data()), "r"(ax.data()), "r"(taux.data()) : "memory");
    auto report = [&](const char *call, const Timing &t) {
      std::printf("time %s %s %.2f %d %ld\n", r.name.c_str(), call, t.median_ns, t.batches, t.per_batch);
      std::fflush(stdout);
    };
    report("aba", time_it([&] { pinocchio::aba(model, data, qx, vx, taux); }, budget_ms));
    report("rnea", time_it([&] { pinocchio::rnea(model, data, qx, vx, ax); }, budget_ms));
    report("crba", time_it([&] { pinocchio::crba(model, data, qx); }, budget_ms));
    report("computeABADerivatives",
           time_it([&] { pinocchio::computeABADerivatives(model, data, qx, vx, taux); }, budget_ms));
    report("computeRNEADerivatives",
           time_it([&] { pinocchio::computeRNEADerivatives(model, data, qx, vx, ax); }, budget_ms));
    report("jacobian", time_it(
                           [&] {
                             pinocchio::computeJointJacobians(model, data, qx);
                             pinocchio::getFrameJacobian(model, data, frame, pinocchio::LOCAL_WORLD_ALIGNED, jacobian);
                           },
                           budget_ms));
    // Every joint's Jacobian and its time variation: what `jacobians` gives, rows and
    // drifts of every link's frame.
    report("computeJointJacobiansTimeVariation",
           time_it([&] { pinocchio::computeJointJacobiansTimeVariation(model, data, qx, vx); }, budget_ms));
    if (!contact_models.empty()) {
      pinocchio::ProximalSettings exact(1e-14, 0.0, 1);
      report("constraintDynamics", time_it(
                                       [&] {
                                         pinocchio::constraintDynamics(model, data, qx, vx, taux, contact_models,
                                                                       contact_datas, exact);
                                       },
                                       budget_ms));
      report("impulseDynamics", time_it(
                                    [&] {
                                      pinocchio::impulseDynamics(model, data, qx, vx, contact_models, contact_datas,
                                                                 0.0, exact);
                                    },
                                    budget_ms));
      report("computeConstraintDynamicsDerivatives",
             time_it(
                 [&] {
                   pinocchio::constraintDynamics(model, data, qx, vx, taux, contact_models, contact_datas, exact);
                   pinocchio::computeConstraintDynamicsDerivatives(model, data, contact_models, contact_datas,
                                                                   exact);
                 },
                 budget_ms));
    }
  }
  std::fflush(stdout);
  return ok ? 0 : 1;
}
