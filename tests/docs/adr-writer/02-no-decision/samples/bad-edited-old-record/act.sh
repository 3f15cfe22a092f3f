# the arm rewrote an accepted record while it was at it
f=docs/adr/0002-use-postgres-as-the-primary-database.md
sed 's/^Status: Accepted$/Status: Accepted (under review, see checkout discussion)/' "$f" > "$f.new" && mv "$f.new" "$f"
