"""The pages for people: server-rendered templates, their static assets, HTML error pages."""
