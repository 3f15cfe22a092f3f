# the arm changed the index without asking
git restore --staged pyproject.toml
