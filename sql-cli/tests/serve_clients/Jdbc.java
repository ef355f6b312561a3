// What PostgreSQL's JDBC driver (pgjdbc) reads from a server: the
// DatabaseMetaData calls DBeaver and other JDBC tools browse with
// (tables, columns, primary keys, indexes, foreign keys) and rows of a
// prepared statement. Run against `jetsql serve` and against PostgreSQL
// holding the same data (`jetsql migrate`), the two outputs must agree.
//
// Usage: java -cp postgresql.jar Jdbc.java URL USER PASSWORD
import java.sql.*;
import java.util.*;

public class Jdbc {
    static String cols(ResultSet rs, String... names) throws SQLException {
        List<String> rows = new ArrayList<>();
        while (rs.next()) {
            StringBuilder b = new StringBuilder();
            for (String n : names) {
                b.append(n).append('=').append(rs.getString(n)).append(' ');
            }
            rows.add(b.toString().trim());
        }
        Collections.sort(rows);
        return String.join("\n  ", rows);
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], args[1], args[2])) {
            DatabaseMetaData md = c.getMetaData();
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, "public", "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    tables.add(rs.getString("TABLE_NAME"));
                }
            }
            Collections.sort(tables);
            System.out.println("tables " + tables);
            for (String t : tables) {
                System.out.println("table " + t);
                System.out.println(" columns\n  " + cols(md.getColumns(null, "public", t, "%"),
                    "ORDINAL_POSITION", "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE",
                    "DECIMAL_DIGITS", "NULLABLE"));
                System.out.println(" primary key\n  " + cols(md.getPrimaryKeys(null, "public", t),
                    "COLUMN_NAME", "KEY_SEQ"));
                System.out.println(" indexes\n  " + cols(md.getIndexInfo(null, "public", t, false, false),
                    "INDEX_NAME", "NON_UNIQUE", "ORDINAL_POSITION", "COLUMN_NAME"));
                System.out.println(" foreign keys\n  " + cols(md.getImportedKeys(null, "public", t),
                    "PKTABLE_NAME", "PKCOLUMN_NAME", "FKCOLUMN_NAME", "KEY_SEQ"));
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT \"OrderID\", \"CustomerID\", \"OrderDate\", \"Freight\", \"ShipName\""
                    + " FROM \"Orders\" WHERE \"OrderID\" BETWEEN ? AND ? ORDER BY \"OrderID\"")) {
                ps.setInt(1, 10248);
                ps.setInt(2, 10252);
                try (ResultSet rs = ps.executeQuery()) {
                    ResultSetMetaData m = rs.getMetaData();
                    StringBuilder types = new StringBuilder("rows");
                    for (int i = 1; i <= m.getColumnCount(); i++) {
                        types.append(' ').append(m.getColumnName(i)).append(':')
                            .append(m.getColumnTypeName(i));
                    }
                    System.out.println(types);
                    while (rs.next()) {
                        System.out.println("  " + rs.getInt(1) + " " + rs.getString(2) + " "
                            + rs.getTimestamp(3) + " " + rs.getBigDecimal(4) + " " + rs.getString(5));
                    }
                }
            }
        }
    }
}
