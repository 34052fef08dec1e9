#pragma once
// Every table of the window copies and exports the same way: Ctrl+C (or the context menu's
// Copy) puts the selected rows on the clipboard as tab-separated text with a header line, for a
// spreadsheet; "Export CSV…" writes every row as RFC 4180 CSV (core's csv_field quoting), in
// the order and with the text the view shows (sorted and filtered as it is). A tree (the mapping
// tree) is written depth-first with a first column `level` (0 for the roots).
#include <QString>
#include <vector>

#include "OutputGuard.hpp"

class QAbstractItemModel;
class QAbstractItemView;
class QModelIndex;

namespace ts::gui {

// The rows of `model` (every row, depth-first for a tree) as CSV under a header line.
QString table_csv(const QAbstractItemModel& model);

// The view's selected rows (in the view's order; the current row when none is selected) as
// tab-separated text under a header line. Tabs and line breaks inside a cell become spaces.
QString selected_rows_tsv(const QAbstractItemView& view);

// Writes table_csv to `path` whole or not at all; false, with why in `error`, when it cannot,
// or when `path` is one of the files `open` (the window's: never written over).
bool save_table_csv(const QAbstractItemModel& model, const QString& path, QString* error = nullptr,
                    const std::vector<NamedPath>& open = {});

// Gives the view a Copy action on Ctrl+C and a context menu: Copy, Copy all, Export CSV… (the
// file dialog starts from `base_name`.csv; the export is refused over a file of `open_files`).
void install_table_export(QAbstractItemView* view, const QString& base_name,
                          OpenFiles open_files = {});

}  // namespace ts::gui
