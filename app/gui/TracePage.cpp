#include "TracePage.hpp"

#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "TraceAnalysisSession.hpp"
#include "views/KernelBreakdownModels.hpp"
#include "views/LaunchDelayHistogram.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TraceBreakdownChart.hpp"

namespace ts::gui {
namespace {

using views::share_text;
using views::trace_time_text;

QString trace_window_text(const RankAnalysis& a) {
  if (a.window.step >= 0) return QStringLiteral("ProfilerStep#%1").arg(a.window.step);
  return a.iterations == 1 ? QObject::tr("the whole trace (1 step)")
                           : QObject::tr("the whole trace (%1 steps)").arg(a.iterations);
}

// A colour time_part_swatch as the bars draw the part, for the figures' text.
QString time_part_swatch(views::TraceTimePart part) {
  return QStringLiteral("<span style=\"color:%1\">&#9632;</span>")
      .arg(views::trace_time_part_colour(part).name());
}

QTableView* breakdown_table_view(QAbstractItemModel* model, QWidget* parent) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(views::kSortRole);
  auto* table = new QTableView;
  table->setModel(proxy);
  table->setSortingEnabled(true);
  table->sortByColumn(-1, Qt::AscendingOrder);  // longest first, as core orders them
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setAlternatingRowColors(true);
  table->setWordWrap(false);
  table->setTextElideMode(Qt::ElideRight);  // a kernel's template arguments are the tail
  table->verticalHeader()->hide();
  // The name takes what the numbers leave.
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int c = 1; c < model->columnCount(); ++c)
    table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  return table;
}

}  // namespace

TracePage::TracePage(TraceAnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      session_(session),
      stack_(new QStackedWidget),
      empty_(new QLabel),
      header_(new QLabel),
      step_(new QComboBox),
      rank_(new QComboBox),
      breakdown_(new QCustomPlot),
      histogram_(new QCustomPlot),
      figures_(new QLabel),
      kernels_(new views::KernelTimeTableModel(this)),
      operators_(new views::OperatorGpuTimeTableModel(this)),
      kernel_table_(breakdown_table_view(kernels_, this)),
      operator_table_(breakdown_table_view(operators_, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(stack_);

  empty_->setObjectName("emptyState");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  empty_->setMargin(12);
  empty_->setText(
      tr("No trace open. File > Open a PyTorch profiler (Kineto) trace (.json, .json.gz), an "
         "Nsight Systems SQLite export or a folder of per-rank traces, give one on the command "
         "line, or drop one here: where each rank's GPU time went (compute, communication, "
         "memory, idle), how much communication ran under compute, why the GPU sat idle, how "
         "long work waited for its launch, and the kernels that took the time."));
  stack_->addWidget(empty_);

  auto* content = new QWidget;
  auto* column = new QVBoxLayout(content);
  auto* controls = new QHBoxLayout;
  header_->setObjectName("traceHeader");
  header_->setWordWrap(true);
  controls->addWidget(header_, 1);
  controls->addWidget(new QLabel(tr("Window:")));
  step_->setObjectName("traceStep");
  step_->setToolTip(tr("The whole trace, or one ProfilerStep every rank has"));
  controls->addWidget(step_);
  controls->addWidget(new QLabel(tr("Rank:")));
  rank_->setObjectName("traceRank");
  rank_->setToolTip(
      tr("The rank whose figures, tables and histogram are shown (a click on its "
         "bar chooses it too)"));
  controls->addWidget(rank_);
  column->addLayout(controls);

  breakdown_->setObjectName("traceBreakdown");
  breakdown_->setMinimumHeight(160);
  figures_->setObjectName("traceFigures");
  figures_->setTextFormat(Qt::RichText);
  figures_->setWordWrap(true);
  figures_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* figures_scroll = new QScrollArea;
  figures_scroll->setWidget(figures_);
  figures_scroll->setWidgetResizable(true);
  figures_scroll->setFrameShape(QFrame::NoFrame);
  auto* top = new QSplitter(Qt::Horizontal);
  top->addWidget(breakdown_);
  top->addWidget(figures_scroll);
  // The figures' text needs about 60 characters a line to stay legible beside the bars.
  figures_scroll->setMinimumWidth(fontMetrics().averageCharWidth() * 56);
  top->setStretchFactor(0, 3);
  top->setStretchFactor(1, 2);
  top->setSizes({720, 480});

  kernel_table_->setObjectName("traceKernels");
  operator_table_->setObjectName("traceOperators");
  auto* tables = new QTabWidget;
  tables->addTab(kernel_table_, tr("Kernels"));
  tables->addTab(operator_table_, tr("By launching operator"));
  histogram_->setObjectName("traceLaunchDelays");
  histogram_->setMinimumHeight(160);
  auto* bottom = new QSplitter(Qt::Horizontal);
  bottom->addWidget(tables);
  bottom->addWidget(histogram_);
  bottom->setStretchFactor(0, 3);
  bottom->setStretchFactor(1, 2);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(top);
  split->addWidget(bottom);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  column->addWidget(split, 1);
  stack_->addWidget(content);

  connect(session_, &TraceAnalysisSession::analysisChanged, this, &TracePage::showAnalysis);
  connect(step_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (filling_ || index < 0) return;
    session_->chooseStep(step_->itemData(index).toLongLong());
  });
  connect(rank_, &QComboBox::currentIndexChanged, this, [this] {
    if (!filling_) showRank();
  });
  connect(breakdown_, &QCustomPlot::plottableClick, this,
          [this](QCPAbstractPlottable* plottable, int data_index, QMouseEvent*) {
            // The bars' keys count down from the top (rank i at ranks - i).
            auto* bars = qobject_cast<QCPBars*>(plottable);
            if (!bars || data_index < 0 || data_index >= bars->data()->size()) return;
            const double key = bars->data()->at(data_index)->key;
            chooseRank(static_cast<int>(session_->ranks().size()) - static_cast<int>(key));
          });
  showAnalysis();
}

int TracePage::currentRank() const {
  const int index = rank_->currentIndex();
  return index >= 0 && static_cast<size_t>(index) < session_->ranks().size() ? index : -1;
}

void TracePage::chooseRank(int index) {
  if (index >= 0 && index < rank_->count()) rank_->setCurrentIndex(index);
}

QString TracePage::figuresText() const { return figures_->text(); }

void TracePage::showAnalysis() {
  const std::vector<RankAnalysis>& ranks = session_->ranks();
  stack_->setCurrentIndex(session_->isOpen() ? 1 : 0);
  if (!session_->isOpen()) return;
  filling_ = true;
  step_->clear();
  step_->addItem(tr("whole trace"), QVariant::fromValue<qlonglong>(-1));
  for (int64_t s : session_->steps())
    step_->addItem(QStringLiteral("ProfilerStep#%1").arg(s), QVariant::fromValue<qlonglong>(s));
  step_->setCurrentIndex(
      std::max(0, step_->findData(QVariant::fromValue<qlonglong>(session_->step()))));
  const int kept = rank_->currentIndex();
  rank_->clear();
  for (const RankAnalysis& a : ranks)
    rank_->addItem(a.device_name.empty()
                       ? tr("rank %1").arg(a.rank)
                       : tr("rank %1 (%2)").arg(a.rank).arg(QString::fromStdString(a.device_name)));
  rank_->setCurrentIndex(kept >= 0 && kept < rank_->count() ? kept : 0);
  filling_ = false;
  QStringList names;
  for (const QString& p : session_->paths()) names << QFileInfo(p).fileName();
  header_->setText(tr("<b>%1</b>: %2 %3, %4")
                       .arg(names.join(", ").toHtmlEscaped())
                       .arg(ranks.size())
                       .arg(ranks.size() == 1 ? tr("rank") : tr("ranks"),
                            ranks.empty() ? QString() : trace_window_text(ranks.front())));
  drawBreakdown();
  showRank();
}

void TracePage::drawBreakdown() {
  const QString title =
      session_->step() >= 0
          ? tr("Where each rank's GPU time went: ProfilerStep#%1").arg(session_->step())
          : tr("Where each rank's GPU time went: the whole trace");
  const auto contents =
      views::fill_trace_breakdown_chart(*breakdown_, session_->ranks(), title, palette());
  breakdown_->setMinimumHeight(std::clamp(contents.readable_height, 160, 420));
}

void TracePage::drawHistogram() {
  const int r = currentRank();
  std::vector<views::LaunchDelaySeries> series;
  QString title = tr("Launch-to-start delay");
  if (r >= 0) {
    const RankAnalysis& a = session_->ranks()[static_cast<size_t>(r)];
    series.push_back({tr("rank %1").arg(a.rank), &a.launch});
    title = tr("Launch-to-start delay, rank %1").arg(a.rank);
  }
  views::fill_launch_delay_histogram(*histogram_, series, title, palette());
}

void TracePage::showRank() {
  const int r = currentRank();
  drawHistogram();
  if (r < 0) {
    kernels_->setBreakdown({});
    operators_->setBreakdown({});
    figures_->clear();
    return;
  }
  const RankAnalysis& a = session_->ranks()[static_cast<size_t>(r)];
  kernels_->setBreakdown(a.kernels);
  operators_->setBreakdown(a.kernels);

  const TemporalBreakdown& t = a.temporal;
  QString h =
      tr("<b>rank %1</b> &nbsp;%2<br>%3, wall %4")
          .arg(a.rank)
          .arg(QString::fromStdString(a.file).toHtmlEscaped() +
                   (a.device_name.empty()
                        ? QString()
                        : " (" + QString::fromStdString(a.device_name).toHtmlEscaped() + ")"),
               trace_window_text(a), trace_time_text(t.wall_ns()));
  h += "<table cellspacing=\"0\" cellpadding=\"1\">";
  for (views::TraceTimePart part : views::kTraceTimeParts) {
    const int64_t ns = views::trace_time_part_ns(t, part);
    h += QStringLiteral(
             "<tr><td>%1 %2</td><td align=\"right\">&nbsp;%3</td>"
             "<td align=\"right\">&nbsp;%4</td></tr>")
             .arg(time_part_swatch(part), views::trace_time_part_name(part), trace_time_text(ns),
                  share_text(ns, t.wall_ns()));
  }
  h += "</table>";

  const CommunicationOverlap& o = a.overlap;
  h += "<p><b>" + tr("Overlap") + "</b>: ";
  h += o.communication_ns == 0
           ? tr("no communication")
           : tr("communication %1, of which %2 under compute: %3")
                 .arg(trace_time_text(o.communication_ns), trace_time_text(o.overlapped_ns),
                      share_text(o.overlapped_ns, o.communication_ns));
  h += "</p>";

  const IdleBreakdown& i = a.idle;
  h += "<p><b>" + tr("Idle by cause") + "</b>: " +
       tr("device idle %1: host-bound %2 (%3), other %4 (%5)")
           .arg(trace_time_text(i.device_idle_ns()), trace_time_text(i.device_host_bound_ns),
                share_text(i.device_host_bound_ns, i.device_idle_ns()),
                trace_time_text(i.device_other_ns),
                share_text(i.device_other_ns, i.device_idle_ns())) +
       "</p>";
  if (!i.streams.empty()) {
    h += "<table cellspacing=\"0\" cellpadding=\"1\"><tr><th align=\"left\">" + tr("stream") +
         "</th><th>&nbsp;" + tr("gaps") + "</th><th>&nbsp;" + tr("idle") + "</th><th>&nbsp;" +
         tr("host-bound") + "</th><th>&nbsp;" + tr("other stream") + "</th><th>&nbsp;" +
         tr("other") + "</th></tr>";
    for (const StreamIdle& s : i.streams)
      h += QStringLiteral(
               "<tr><td>%1</td><td align=\"right\">%2</td><td align=\"right\">%3</td>"
               "<td align=\"right\">%4</td><td align=\"right\">%5</td><td align=\"right\">%6</td>"
               "</tr>")
               .arg(s.stream)
               .arg(s.gaps)
               .arg(trace_time_text(s.idle_ns()), trace_time_text(s.host_bound_ns),
                    trace_time_text(s.other_stream_ns), trace_time_text(s.other_ns));
    h += "</table>";
  }

  const LaunchStatistics& l = a.launch;
  h += "<p><b>" + tr("Launches") + "</b>: ";
  if (l.launched == 0) {
    h += tr("no GPU work with a launch in the trace (%1 without)").arg(l.unlaunched);
  } else {
    h += tr("%1 GPU activities tied to a launch (%2 not); delay p50 %3, p90 %4, p99 %5, max %6. "
            "%7 kernels ran shorter than their launch call (%8 of GPU time); queue length max "
            "%9, mean %10")
             .arg(l.launched)
             .arg(l.unlaunched)
             .arg(trace_time_text(l.delay_p50_ns), trace_time_text(l.delay_p90_ns),
                  trace_time_text(l.delay_p99_ns), trace_time_text(l.delay_max_ns))
             .arg(l.shorter_than_launch)
             .arg(trace_time_text(l.shorter_than_launch_ns))
             .arg(l.max_queue)
             .arg(l.mean_queue, 0, 'f', 1);
  }
  h += "</p>";
  for (const std::string& note : a.notes)
    h += "<p><i>" + tr("note: %1").arg(QString::fromStdString(note).toHtmlEscaped()) + "</i></p>";
  figures_->setText(h);
}

void TracePage::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Dark mode: the plots' colours come from the palette.
  if (event->type() == QEvent::PaletteChange && session_->isOpen()) {
    drawBreakdown();
    drawHistogram();
  }
}

}  // namespace ts::gui
