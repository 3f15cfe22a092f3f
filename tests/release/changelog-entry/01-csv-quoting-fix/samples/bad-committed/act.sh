# the arm committed the entry although nobody asked it to
git commit -q -am 'Update changelog'
