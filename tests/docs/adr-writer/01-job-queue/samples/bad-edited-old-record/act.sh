# the arm also 'linked' the new record from an old one
printf '\nSee also ADR-0003 for background jobs.\n' >> docs/adr/0002-use-postgres-as-the-primary-database.md
