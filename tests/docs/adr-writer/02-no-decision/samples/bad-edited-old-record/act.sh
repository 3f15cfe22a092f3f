# the arm rewrote an accepted record while it was at it
sed -i 's/^Status: Accepted$/Status: Accepted (under review, see checkout discussion)/' docs/adr/0002-use-postgres-as-the-primary-database.md
