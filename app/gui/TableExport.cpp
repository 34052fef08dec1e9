#include "TableExport.hpp"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QTreeView>
#include <algorithm>
#include <functional>

#include "common/AtomicFile.hpp"
#include "common/CsvField.hpp"

namespace ts::gui {
namespace {

bool is_tree(const QAbstractItemModel& model) {
  for (int r = 0; r < model.rowCount(); ++r)
    if (model.hasChildren(model.index(r, 0))) return true;
  return false;
}

QStringList header_of(const QAbstractItemModel& model) {
  QStringList header;
  for (int c = 0; c < model.columnCount(); ++c)
    header << model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
  return header;
}

QStringList cells_of(const QAbstractItemModel& model, const QModelIndex& first) {
  QStringList cells;
  for (int c = 0; c < model.columnCount(first.parent()); ++c)
    cells << model.index(first.row(), c, first.parent()).data(Qt::DisplayRole).toString();
  return cells;
}

QString csv_line(QStringList cells) {
  QStringList fields;
  for (const QString& cell : cells) fields << QString::fromStdString(csv_field(cell.toStdString()));
  return fields.join(',') + '\n';
}

QString tsv_line(QStringList cells) {
  for (QString& cell : cells) {
    cell.replace('\t', ' ');
    cell.replace('\n', ' ');
    cell.replace('\r', ' ');
  }
  return cells.join('\t') + '\n';
}

// Every row, depth-first, each written by `line` (CSV or TSV).
QString table_text(const QAbstractItemModel& model, QString (*line)(QStringList)) {
  const bool tree = is_tree(model);
  QStringList header = header_of(model);
  if (tree) header.prepend("level");
  QString text = line(header);
  const std::function<void(const QModelIndex&, int)> rows = [&](const QModelIndex& parent,
                                                                int level) {
    for (int r = 0; r < model.rowCount(parent); ++r) {
      const QModelIndex first = model.index(r, 0, parent);
      QStringList cells = cells_of(model, first);
      if (tree) cells.prepend(QString::number(level));
      text += line(cells);
      if (tree) rows(first, level + 1);
    }
  };
  rows({}, 0);
  return text;
}

}  // namespace

QString table_csv(const QAbstractItemModel& model) { return table_text(model, csv_line); }

QString selected_rows_tsv(const QAbstractItemView& view) {
  const QAbstractItemModel* model = view.model();
  if (!model || !view.selectionModel()) return {};
  QModelIndexList rows;
  for (const QModelIndex& index : view.selectionModel()->selectedIndexes())
    if (index.isValid()) {
      const QModelIndex first = index.siblingAtColumn(0);
      if (!rows.contains(first)) rows << first;
    }
  if (rows.isEmpty() && view.currentIndex().isValid())
    rows << view.currentIndex().siblingAtColumn(0);
  // The view's order: by the rows' places on screen (a tree's rows are not ordered by row()).
  std::sort(rows.begin(), rows.end(), [&view](const QModelIndex& a, const QModelIndex& b) {
    return view.visualRect(a).top() < view.visualRect(b).top();
  });
  QString text = tsv_line(header_of(*model));
  for (const QModelIndex& first : rows) text += tsv_line(cells_of(*model, first));
  return text;
}

bool save_table_csv(const QAbstractItemModel& model, const QString& path, QString* error,
                    const std::vector<NamedPath>& open) {
  try {
    refuse_output_over_open_files(path, QObject::tr("the CSV export"), open);
    write_file_atomically(path.toStdString(), table_csv(model).toStdString());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

void install_table_export(QAbstractItemView* view, const QString& base_name, OpenFiles open_files) {
  auto* copy = new QAction(QObject::tr("&Copy"), view);
  copy->setShortcut(QKeySequence::Copy);
  copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  QObject::connect(copy, &QAction::triggered, view,
                   [view] { QApplication::clipboard()->setText(selected_rows_tsv(*view)); });
  view->addAction(copy);
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(
      view, &QWidget::customContextMenuRequested, view,
      [view, copy, base_name, open_files](const QPoint& at) {
        QMenu menu(view);
        menu.addAction(copy);
        menu.addAction(QObject::tr("Copy &all"), view, [view] {
          if (view->model())
            QApplication::clipboard()->setText(table_text(*view->model(), tsv_line));
        });
        menu.addSeparator();
        menu.addAction(QObject::tr("&Export CSV…"), view, [view, base_name, open_files] {
          if (!view->model()) return;
          const QString path =
              QFileDialog::getSaveFileName(view, QObject::tr("Export the table"),
                                           base_name + ".csv", QObject::tr("CSV (*.csv)"));
          QString error;
          if (!path.isEmpty() &&
              !save_table_csv(*view->model(), path, &error,
                              open_files ? open_files() : std::vector<NamedPath>{}))
            QMessageBox::warning(view, QObject::tr("Export failed"), error);
        });
        menu.exec(view->viewport()->mapToGlobal(at));
      });
}

}  // namespace ts::gui
