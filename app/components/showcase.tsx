import { ProjectCard } from "~/components/project-card";
import type { Project, SiteContent } from "~/content/site";

export function Showcase({
  projects,
  projectSummary,
  copy,
}: {
  projects: Project[];
  projectSummary: SiteContent["projectSummary"];
  copy: SiteContent["showcaseCopy"];
}) {
  return (
    <section aria-labelledby="projects-title" className="mx-auto max-w-6xl px-4 py-14 sm:px-6">
      <h2 id="projects-title" className="text-center text-3xl font-extrabold tracking-tight text-ink">
        {copy.title}
      </h2>
      <ul className="mt-10 grid grid-cols-1 gap-6 md:grid-cols-2 lg:grid-cols-3">
        {projects.map((project) => (
          <li key={project.title} className="flex">
            <ProjectCard project={project} copy={copy} />
          </li>
        ))}
      </ul>
      <dl className="mt-10 grid grid-cols-2 gap-4 rounded-2xl bg-strip p-6 text-center text-white md:grid-cols-4">
        {projectSummary.map((item) => (
          <div key={item.label} className="flex flex-col-reverse">
            <dt className="mt-1 text-sm text-strip-ink">{item.label}</dt>
            <dd className="text-3xl font-extrabold tabular-nums">{item.value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
