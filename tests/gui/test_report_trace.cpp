// `tilescope report --trace` (issue 38): the generated 4-rank DDP step as a report without a
// database, its HTML with every section (bars per rank, the breakdown table whose parts add up
// to each rank's wall time, overlap, idle by cause, the launch histogram, kernels), its figures
// drawn by the Trace page's builders, and the same as a PDF whose text has the sections; a step
// no rank has and a run's option are one-line errors (exit 2).
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

#include "GuiTestSupport.hpp"

namespace {

const QString kDdpFolder = TILESCOPE_ROOT "/samples/traces/bert-ddp-4rank";

struct ReportRunResult {
  int code = -1;
  QString out, err;
};

ReportRunResult run_trace_report(const QStringList& args) {
  QProcess p;
  p.setWorkingDirectory(TILESCOPE_ROOT);
  p.start(TILESCOPE_BUILD_DIR "/app/tilescope-report", args);
  REQUIRE(p.waitForFinished(120000));
  return {p.exitCode(), QString::fromLocal8Bit(p.readAllStandardOutput()),
          QString::fromLocal8Bit(p.readAllStandardError())};
}

QString read_report_text(const QString& path) {
  QFile f(path);
  REQUIRE(f.open(QIODevice::ReadOnly));
  return QString::fromUtf8(f.readAll());
}

}  // namespace

TEST_CASE("report --trace: the 4-rank step's time per rank, as HTML and PDF", "[report][trace]") {
  QTemporaryDir dir;
  const QString html = dir.filePath("ddp.html");
  const ReportRunResult r = run_trace_report(
      {"--trace", kDdpFolder, "--step", "11", "--out", html, "--figures", dir.filePath("figures")});
  INFO(r.err.toStdString());
  REQUIRE(r.code == 0);
  CHECK(r.out.contains("4 ranks, ProfilerStep#11, 2 figures"));
  const QString text = read_report_text(html);
  for (const char* id : {"trace-breakdown", "trace-overlap", "trace-idle", "trace-launch",
                         "trace-kernels", "figure-trace-breakdown", "figure-trace-launch-delays",
                         "trace-breakdown-table", "trace-stream-idle-table"}) {
    INFO(id);
    CHECK(text.contains(QString("id=\"%1\"").arg(id)));
  }
  // The figures inline, as PNG.
  CHECK(text.count("src=\"data:image/png;base64,") == 2);
  CHECK(QFile::exists(dir.filePath("figures/trace-breakdown.png")));
  CHECK(QFile::exists(dir.filePath("figures/trace-launch-delays.svg")));
  CHECK(text.contains("ncclDevKernel_AllReduce_Sum_f16_RING_LL"));

  // The data block is `trace summary --format json`: every rank's parts add up to its wall.
  const QRegularExpression block(
      R"(<script type="application/json" id="tilescope-trace-data">\n(.*)\n</script>)",
      QRegularExpression::DotMatchesEverythingOption);
  const auto m = block.match(text);
  REQUIRE(m.hasMatch());
  const nlohmann::json data = nlohmann::json::parse(m.captured(1).toStdString());
  INFO(data.dump().substr(0, 400));
  REQUIRE(data.is_array());
  REQUIRE(data.size() == 4);
  for (const auto& rank : data) {
    CHECK(rank["window"]["step"].get<int64_t>() == 11);
    const auto& t = rank["breakdown"];
    CHECK(t["compute_us"].get<double>() + t["communication_us"].get<double>() +
              t["memory_us"].get<double>() + t["idle_us"].get<double>() ==
          Approx(t["wall_us"].get<double>()));
  }
  // One table row per rank in the breakdown table.
  const qsizetype table = text.indexOf("id=\"trace-breakdown-table\"");
  const QString rows = text.mid(table, text.indexOf("</table>", table) - table);
  CHECK(rows.count("<tr>") == 5);  // the header and 4 ranks

  const QString pdf = dir.filePath("ddp.pdf");
  const ReportRunResult p = run_trace_report({"--trace", kDdpFolder, "--out", pdf});
  REQUIRE(p.code == 0);
  QFile f(pdf);
  REQUIRE(f.open(QIODevice::ReadOnly));
  CHECK(f.read(5) == "%PDF-");
  QProcess totext;
  totext.start("pdftotext", {pdf, "-"});
  if (totext.waitForFinished(60000) && totext.exitCode() == 0) {
    const QString words = QString::fromUtf8(totext.readAllStandardOutput());
    CHECK(words.contains("Where the time went"));
    CHECK(words.contains("Idle time by cause"));
    CHECK(words.contains("Launch statistics"));
  }
}

TEST_CASE("report --trace refuses a step no rank has and a run's options", "[report][trace]") {
  QTemporaryDir dir;
  const ReportRunResult step =
      run_trace_report({"--trace", kDdpFolder, "--step", "3", "--out", dir.filePath("x.html")});
  CHECK(step.code == 2);
  CHECK(step.err.contains("--step"));
  CHECK_FALSE(QFile::exists(dir.filePath("x.html")));
  const ReportRunResult arch =
      run_trace_report({"--trace", kDdpFolder, "--arch", "samples/arch/nvidia-a100.yaml", "--out",
                        dir.filePath("x.html")});
  CHECK(arch.code == 2);
  CHECK(arch.err.contains("--arch: not with --trace"));
  const ReportRunResult missing =
      run_trace_report({"--trace", dir.filePath("none.json"), "--out", dir.filePath("x.html")});
  CHECK(missing.code == 2);
  CHECK(missing.err.contains("none.json"));
}

TEST_CASE("report --trace --arch --on: the step measured, predicted here and on another chip",
          "[report][trace]") {
  QTemporaryDir dir;
  const QString rank0 = kDdpFolder + "/rank0.pt.trace.json.gz";
  const QString out = dir.filePath("elsewhere.html");
  const ReportRunResult r =
      run_trace_report({"--trace", rank0, "--step", "10", "--arch", "samples/arch/nvidia-a100.yaml",
                        "--on", "samples/arch/nvidia-h200.yaml", "--out", out});
  INFO(r.err.toStdString());
  REQUIRE(r.code == 0);
  const QString html = read_report_text(out);
  CHECK(html.contains("id=\"trace-elsewhere\""));
  CHECK(html.contains("id=\"trace-elsewhere-table\""));
  CHECK(html.contains("predicted there (nvidia-h200)"));
  const QRegularExpression block(
      "<script type=\"application/json\" id=\"tilescope-trace-data\">\\n(.*)\\n</script>",
      QRegularExpression::DotMatchesEverythingOption);
  const QRegularExpressionMatch m = block.match(html);
  REQUIRE(m.hasMatch());
  const nlohmann::json data = nlohmann::json::parse(m.captured(1).toStdString());
  const nlohmann::json& p = data["on_another_chip"];
  CHECK(p["here"] == "nvidia-a100");
  CHECK(p["there"] == "nvidia-h200");
  // The measured step is rank 0's wall time over the step, as the breakdown says.
  CHECK(p["measured_us"].get<double>() ==
        Approx(data["ranks"][0]["window"]["wall_us"].get<double>()));
  REQUIRE(!p["operators"].empty());
  const double carried = p["carried_over_us"].get<double>();
  CHECK(p["predicted_there_us"].get<double>() ==
        Approx(carried + p["modelled"]["there_us"].get<double>()));

  // --on needs one trace file and the graph of the chip it ran on.
  const ReportRunResult folder =
      run_trace_report({"--trace", kDdpFolder, "--arch", "samples/arch/nvidia-a100.yaml", "--on",
                        "samples/arch/nvidia-h200.yaml", "--out", dir.filePath("x.html")});
  CHECK(folder.code == 2);
  CHECK(folder.err.contains("--on"));
  CHECK_FALSE(QFile::exists(dir.filePath("x.html")));
}
