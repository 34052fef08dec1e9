#include "views/PlotExport.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QSvgGenerator>

#include "views/QCustomPlotInclude.hpp"

namespace ts::views {
namespace {

// QSvgGenerator writes through a QIODevice: a QSaveFile, so that a failed export leaves no
// half-written file behind.
bool save_svg(QCustomPlot& plot, const QString& path, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = file.errorString();
    return false;
  }
  const int width = plot.width(), height = plot.height();
  QSvgGenerator svg;
  svg.setOutputDevice(&file);
  svg.setSize(QSize(width, height));
  svg.setViewBox(QRect(0, 0, width, height));
  svg.setTitle(QFileInfo(path).completeBaseName());
  svg.setDescription("tilescope");
  {
    QCPPainter painter;
    if (!painter.begin(&svg)) {
      if (error) *error = QObject::tr("cannot draw into the SVG");
      file.cancelWriting();
      return false;
    }
    plot.toPainter(&painter, width, height);
    painter.end();
  }
  if (!file.commit()) {
    if (error) *error = file.errorString();
    return false;
  }
  return true;
}

}  // namespace

PlotFormat plot_format_of(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "svg") return PlotFormat::svg;
  if (suffix == "pdf") return PlotFormat::pdf;
  return PlotFormat::png;
}

bool save_plot(QCustomPlot& plot, const QString& path, QString* error) {
  bool ok = false;
  switch (plot_format_of(path)) {
    case PlotFormat::svg:
      return save_svg(plot, path, error);
    case PlotFormat::pdf:
      ok = plot.savePdf(path, plot.width(), plot.height(), QCP::epNoCosmetic, "tilescope");
      break;
    case PlotFormat::png:
      ok = plot.savePng(path, plot.width(), plot.height(), 2.0);
      break;
  }
  if (!ok && error) *error = QObject::tr("cannot write %1").arg(path);
  return ok;
}

void install_plot_export(QCustomPlot* plot, const QString& base_name) {
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(
      plot, &QWidget::customContextMenuRequested, plot, [plot, base_name](const QPoint& at) {
        QMenu menu(plot);
        const struct {
          QString label, suffix, filter;
        } formats[] = {
            {QObject::tr("Export as PNG…"), "png", QObject::tr("PNG image (*.png)")},
            {QObject::tr("Export as SVG…"), "svg", QObject::tr("SVG drawing (*.svg)")},
            {QObject::tr("Export as PDF…"), "pdf", QObject::tr("PDF document (*.pdf)")},
        };
        for (const auto& f : formats)
          menu.addAction(f.label, plot, [plot, base_name, f] {
            const QString path = QFileDialog::getSaveFileName(plot, QObject::tr("Export the plot"),
                                                              base_name + "." + f.suffix, f.filter);
            if (path.isEmpty()) return;
            QString error;
            if (!save_plot(*plot, path, &error))
              QMessageBox::warning(plot, QObject::tr("Export failed"), error);
          });
        menu.exec(plot->mapToGlobal(at));
      });
}

}  // namespace ts::views
