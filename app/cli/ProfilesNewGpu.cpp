// `tilescope profiles new gpu`: a GPU's data profile from its specification. The figures come
// from flags or a spec file (flags win), the rest from the vendor's generation rules
// (plugins/<vendor>/family.yaml), and the vendor's bundled calibration goes on top unless told
// otherwise. `--out DIR` writes a self-contained profile (profile.yaml, the graph, the spec as
// used, the kernel templates the graph names); `--graph FILE` writes only the graph, naming the
// family's own kernel templates (what scripts/gpu-profiles does for the bundled graphs).
#include "ProfilesNewGpu.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arch/GraphCalibration.hpp"
#include "common/AtomicFile.hpp"
#include "common/DataDirectory.hpp"
#include "common/InputError.hpp"
#include "common/OutputPath.hpp"
#include "common/YamlSource.hpp"
#include "profile/GpuGraph.hpp"
#include "profile/Profile.hpp"
#include "profile/ProfileManifestWriter.hpp"

namespace ts::cli {
namespace {

namespace fs = std::filesystem;

// The family file and how the graph names it: the bundled one by its place in the source tree's
// layout, so that a regenerated graph is the same text wherever tilescope runs from.
struct Located {
  std::string path;
  std::string label;
};

Located family_file(const NewGpuOptions& a, const GpuSpec& spec) {
  if (!a.family.empty()) return {a.family, a.family};
  const std::string relative = "plugins/" + spec.vendor + "/family.yaml";
  const fs::path found = bundled_file(relative);
  std::error_code ec;
  if (!fs::is_regular_file(found, ec))
    throw InputError(
        spec.vendor_where.file.empty() ? SourceLocation{"--vendor", 0, 0} : spec.vendor_where,
        fmt::format("no generation rules for vendor '{}' ({} not found); expected "
                    "nvidia or amd, or --family FILE",
                    spec.vendor, relative));
  return {found.string(), relative + " (bundled)"};
}

// The calibration: none, a file, or the vendor's bundled one when it exists.
std::optional<Located> calibration_file(const NewGpuOptions& a, const GpuSpec& spec,
                                        std::string& remark) {
  if (a.calibration == "none") {
    remark = "none (--calibration none)";
    return std::nullopt;
  }
  if (!a.calibration.empty()) return Located{a.calibration, a.calibration};
  const std::string relative = "plugins/" + spec.vendor + "/calibration.yaml";
  const fs::path found = bundled_file(relative);
  std::error_code ec;
  if (!fs::is_regular_file(found, ec)) {
    remark = fmt::format("none: the vendor's bundled one, {}, does not exist yet", relative);
    return std::nullopt;
  }
  return Located{found.string(), relative + " (bundled)"};
}

std::string relative_label(const std::string& file, const std::string& to_folder_of) {
  const fs::path dir = fs::absolute(fs::path(to_folder_of)).lexically_normal().parent_path();
  const fs::path rel = fs::absolute(file).lexically_normal().lexically_relative(dir);
  return rel.empty() ? file : rel.generic_string();
}

GpuSpec spec_from(const NewGpuOptions& a) {
  GpuSpec spec;
  if (!a.spec.empty()) spec = load_gpu_spec(a.spec, /*complete=*/false);
  auto flag_text = [](std::string& field, SourceLocation& where, const std::string& value,
                      const char* flag) {
    if (value.empty()) return;
    field = value;
    where = SourceLocation{flag, 0, 0};
  };
  flag_text(spec.name, spec.name_where, a.name, "--name");
  flag_text(spec.vendor, spec.vendor_where, a.vendor, "--vendor");
  flag_text(spec.generation, spec.generation_where, a.generation, "--generation");
  if (!a.product.empty()) spec.product = a.product;
  if (!a.memory_type.empty()) spec.memory_type = a.memory_type;
  if (!a.name.empty() &&
      (!is_profile_name(a.name) || a.name.find_first_not_of('.') == std::string::npos))
    throw InputError(
        SourceLocation{"--name", 0, 0},
        "'" + a.name + "' is not a variant name; expected letters, digits, '-', '_' and '.'");
  for (const auto& [key, text] : a.figure_text) {
    if (text.empty()) continue;
    const std::string flag = spec_flag(key);
    set_spec_figure(spec, key, text, SourceLocation{flag, 0, 0});
    spec.sources[key] = "the command line (" + flag + ")";
  }
  if (!a.tensor.empty()) {
    GpuSpec rates;
    set_spec_tensor_rates(rates, a.tensor, SourceLocation{"--tensor", 0, 0});
    for (auto& [dtype, f] : rates.tensor) {
      spec.tensor[dtype] = f;
      spec.sources["tensor." + dtype] = "the command line (--tensor)";
    }
  }
  check_complete_spec(spec, /*flags=*/true);
  return spec;
}

void print_figures(const GeneratedGpu& g, const std::string& calibration_remark) {
  std::cout << "calibration: " << calibration_remark << "\n";
  std::cout << fmt::format(
      "figures of {} (given: from the specification; rule: the generation's "
      "rule, with its source; calibration: the fitted factor on top):\n",
      g.graph_name);
  size_t width = 0, value_width = 0;
  for (const GpuFigure& f : g.figures) {
    width = std::max(width, f.figure.size());
    value_width = std::max(value_width, std::min<size_t>(f.value.size(), 24));
  }
  for (const GpuFigure& f : g.figures)
    std::cout << fmt::format("  {:<{}}  {:<{}}  {}\n", f.figure, width, f.value, value_width,
                             f.provenance);
  if (!g.notes.empty()) {
    std::cout << "notes:\n";
    for (const std::string& n : g.notes) std::cout << "  " << n << "\n";
  }
}

bool folder_has_entries(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::directory_iterator(dir, ec) != fs::directory_iterator();
}

}  // namespace

int run_profiles_new_gpu(const NewGpuOptions& a) {
  if (a.out.empty() == a.graph.empty())
    throw InputError(SourceLocation{"--out", 0, 0},
                     "expected one of --out DIR (a profile: profile.yaml, the graph, the spec as "
                     "used and the kernel templates) and --graph FILE (the graph alone)");
  const GpuSpec spec = spec_from(a);
  const Located family_at = family_file(a, spec);
  const GpuFamily family = load_gpu_family(family_at.path);
  std::string calibration_remark;
  const std::optional<Located> calibration_at = calibration_file(a, spec, calibration_remark);
  std::optional<GraphCalibration> calibration;
  if (calibration_at) {
    calibration = load_calibration(calibration_at->path);
    calibration_remark = calibration_at->label;
  }

  GpuGraphOptions options;
  options.family_label = family_at.label;
  if (calibration) {
    options.calibration = &*calibration;
    options.calibration_label = calibration_at->label;
  }

  if (!a.graph.empty()) {
    // The graph alone, naming the family's kernel templates where they are.
    options.graph_file = a.graph;
    options.kernels_folder = family.kernels_folder;
    options.spec_label =
        a.spec.empty() ? std::string("the command line") : relative_label(a.spec, a.graph);
    const GeneratedGpu g = generate_gpu_graph(spec, family, options);
    write_file_atomically(a.graph, g.graph_yaml);
    std::cout << fmt::format("wrote {} (graph {})\n", a.graph, g.graph_name);
    std::string missing;
    for (const std::string& k : g.kernels) {
      std::error_code ec;
      if (!fs::is_regular_file(family.kernel_file(k), ec))
        missing += (missing.empty() ? "" : ", ") + k;
    }
    if (!missing.empty())
      std::cout << fmt::format(
          "note: kernel templates not in {} yet: {}; the graph loads once "
          "they are\n",
          family.kernels_folder, missing);
    print_figures(g, calibration_remark);
    return 0;
  }

  const fs::path dir(a.out);
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InputError(SourceLocation{"--out", 0, 0},
                     fmt::format("{} is a file; expected a folder for the profile", a.out));
  if (folder_has_entries(dir) && !a.force)
    throw InputError(SourceLocation{"--out", 0, 0},
                     fmt::format("{} is not empty; expected a new or empty folder (--force writes "
                                 "into it, replacing the files of the same names)",
                                 a.out));
  const std::string graph_file = (dir / (spec.name + ".yaml")).string();
  const std::string spec_file = (dir / (spec.name + ".spec.yaml")).string();
  const std::string manifest_file = (dir / "profile.yaml").string();
  // The grammar checked the folder itself; the files it gets are named only now: none may be a
  // file this command reads (a --spec kept in the folder it regenerates).
  refuse_outputs_over_inputs(
      {{"--out", spec_file}, {"--out", graph_file}, {"--out", manifest_file}},
      {{"--spec", a.spec},
       {"--family", a.family},
       {"--calibration", a.calibration == "none" ? std::string() : a.calibration}});
  options.graph_file = graph_file;
  options.kernels_folder = (dir / "kernels").string();
  options.spec_label = spec.name + ".spec.yaml";
  const GeneratedGpu g = generate_gpu_graph(spec, family, options);

  // Everything is read and made before anything is written: a missing template fails here.
  std::vector<std::pair<std::string, std::string>> files;
  Profile profile;
  profile.name = spec.name;
  profile.profile_version = "1.0.0";
  profile.description = (spec.product.empty() ? spec.name : spec.product) +
                        " (generated by tilescope profiles new gpu from its specification)";
  profile.default_variant = spec.name;
  profile.variants.push_back(
      {spec.name, graph_file, calibration.has_value(),
       fmt::format("{}.spec.yaml with the {} rules of {}; calibration: {}", spec.name,
                   spec.generation, family_at.label, calibration_remark)});
  for (const std::string& k : g.kernels) {
    const std::string from = family.kernel_file(k);
    if (!fs::is_regular_file(from, ec))
      throw InputError(SourceLocation{family_at.path, 0, 0},
                       fmt::format("kernel template '{}' of the {} menu not found (looked for "
                                   "{}); expected the family's kernels folder to hold it",
                                   k, spec.generation, from));
    const std::string to = (dir / "kernels" / (k + ".yaml")).string();
    files.emplace_back(to, YamlSource::read_file(from));
    profile.mapping_templates.push_back(to);
  }
  files.emplace_back(graph_file, g.graph_yaml);
  files.emplace_back(spec_file, g.spec_yaml);
  files.emplace_back(manifest_file, profile_manifest_yaml(profile, manifest_file));

  const bool made_dir = !fs::exists(dir, ec);
  const bool made_kernels = !fs::exists(dir / "kernels", ec);
  try {
    fs::create_directories(dir / "kernels");
    write_files_atomically(files);
  } catch (...) {
    // Nothing half-written: the folders this command made go again (they are empty).
    if (made_kernels) fs::remove(dir / "kernels", ec);
    if (made_dir) fs::remove(dir, ec);
    throw;
  }
  std::cout << fmt::format(
      "wrote {}: profile.yaml (profile {}), {}.yaml (graph {}), {}.spec.yaml (the spec as used), "
      "kernels/ ({} templates)\n",
      a.out, spec.name, spec.name, g.graph_name, spec.name, g.kernels.size());
  std::cout << fmt::format(
      "use: tilescope predict --arch {} ...  (or TILESCOPE_PLUGIN_PATH={} and --arch "
      "profile:{})\n",
      graph_file, fs::absolute(dir).lexically_normal().parent_path().string(), spec.name);
  print_figures(g, calibration_remark);
  return 0;
}

}  // namespace ts::cli
